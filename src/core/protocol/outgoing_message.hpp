#pragma once

#include <netprof/clock.hpp>
#include <netprof/config.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

namespace netprof {

// A message buffer allocated once at setup; the loops only rewrite its header.
class OutgoingMessage {
public:
  explicit OutgoingMessage(std::size_t payload_size) : m_bytes(wire::header_size + payload_size) {}

  std::span<std::byte> payload() noexcept
  {
    return std::span<std::byte>(m_bytes).subspan(wire::header_size);
  }

  // Encodes the header (its payload_length is set from the buffer) and returns the message.
  std::span<std::byte> with_header(wire::Header header) noexcept
  {
    header.payload_length = static_cast<std::uint32_t>(m_bytes.size() - wire::header_size);
    wire::encode_header(header, m_bytes);
    return m_bytes;
  }

  // Rewrites only what changes from one data message to the next, over a header with_header
  // encoded before, and returns the message.
  std::span<std::byte> restamped(const wire::DataStamp& stamp) noexcept
  {
    wire::restamp_header(stamp, m_bytes);
    return m_bytes;
  }

  std::size_t payload_capacity() const noexcept { return m_bytes.size() - wire::header_size; }

  // The header and the first `payload_length` bytes of the payload, for a message shorter than
  // the buffer (a full echo). Precondition: payload_length <= payload_capacity().
  std::span<std::byte> with_header(wire::Header header, std::size_t payload_length) noexcept
  {
    header.payload_length = static_cast<std::uint32_t>(payload_length);
    wire::encode_header(header, m_bytes);
    return std::span<std::byte>(m_bytes).first(wire::header_size + payload_length);
  }

  // Grows the buffer (at setup or a control event only: it allocates); the payload keeps its
  // bytes and the new ones are zero.
  void reserve_payload(std::size_t payload_size)
  {
    if (payload_size > payload_capacity())
      m_bytes.resize(wire::header_size + payload_size);
  }

private:
  std::vector<std::byte> m_bytes;
};

// Whether a lent buffer gets the payload written into it (--payload-fill): always under
// every-message; under once, only when it does not hold the payload from an earlier loan.
constexpr bool must_write_payload(PayloadFill fill, const Loan& loan) noexcept
{
  return fill == PayloadFill::every_message || !loan.holds_payload;
}

// Writes a data message built in an OutgoingMessage into a loan of its size: its header, and
// its payload when must_write_payload says so. Returns whether the payload was written.
inline bool write_into_loan(const Loan& loan, std::span<const std::byte> message,
                            PayloadFill fill) noexcept
{
  const bool payload = must_write_payload(fill, loan);
  const std::size_t bytes = payload ? message.size() : std::min(message.size(), wire::header_size);
  std::memcpy(loan.bytes.data(), message.data(), std::min(bytes, loan.bytes.size()));
  return payload;
}

} // namespace netprof
