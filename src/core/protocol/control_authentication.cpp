#include "core/protocol/control_authentication.hpp"

#include "core/protocol/address_proof.hpp"

#include <sodium.h>

namespace netprof {

namespace {

const unsigned char* bytes_of(const std::byte* data) noexcept
{
  return reinterpret_cast<const unsigned char*>(data);
}

} // namespace

ControlAuthentication::ControlAuthentication(std::span<const std::byte> shared_secret)
{
  if (shared_secret.empty())
    return;
  initialise_sodium();
  // Hashed, so a secret of any length and any content makes a full-strength key.
  crypto_generichash(m_key.data(), m_key.size(), bytes_of(shared_secret.data()),
                     shared_secret.size(), nullptr, 0);
  m_enabled = true;
}

void ControlAuthentication::mac(std::span<const std::byte> covered, std::byte* tag) const noexcept
{
  crypto_generichash(reinterpret_cast<unsigned char*>(tag), tag_size, bytes_of(covered.data()),
                     covered.size(), m_key.data(), m_key.size());
}

std::span<const std::byte> ControlAuthentication::seal(OutgoingMessage& message,
                                                       wire::Header header) const noexcept
{
  if (!m_enabled)
    return message.with_header(header);
  header.flags |= wire::flags::authenticated;
  const std::span<std::byte> bytes = message.with_header(header);
  mac(bytes.first(bytes.size() - tag_size), bytes.data() + bytes.size() - tag_size);
  return bytes;
}

std::array<std::byte, ControlAuthentication::tag_size>
ControlAuthentication::tag_of(std::span<const std::byte> covered) const noexcept
{
  std::array<std::byte, tag_size> tag;
  mac(covered, tag.data());
  return tag;
}

bool ControlAuthentication::verify(std::span<const std::byte> covered,
                                   std::span<const std::byte> tag) const noexcept
{
  if (tag.size() != tag_size)
    return false;
  const std::array<std::byte, tag_size> expected = tag_of(covered);
  return crypto_verify_16(bytes_of(expected.data()), bytes_of(tag.data())) == 0;
}

bool ControlAuthentication::open_control(std::span<const std::byte>& message) const noexcept
{
  if (message.size() < wire::header_size + tag_size)
    return false;
  const std::span<const std::byte> covered = message.first(message.size() - tag_size);
  if (!verify(covered, message.last(tag_size)))
    return false;
  message = covered;
  return true;
}

} // namespace netprof
