#pragma once

#include <zmq.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace netprof::zeromq {

// Zero-copy sends of a payload that never changes. Each of a few buffers holds a copy of the
// payload, made once at setup, with room before it for a message's header. Sending a message
// then copies only its header into a free buffer and lends the buffer to ZeroMQ
// (zmq_msg_init_data); ZeroMQ's I/O thread hands it back once it has written the message to
// every peer. When every buffer is still lent, the caller copies as usual instead: ZeroMQ's
// own queueing and high-water mark behave exactly as without the pool.
class ZeroCopyPool {
public:
  static constexpr std::size_t max_prefix = 64; // room before the payload, for the header

  ZeroCopyPool(std::span<const std::byte> payload, std::size_t buffers);
  ZeroCopyPool(const ZeroCopyPool&) = delete; // ZeroMQ holds pointers into it
  ZeroCopyPool& operator=(const ZeroCopyPool&) = delete;

  // Builds `message` as `prefix` followed by the payload in a free buffer, lent to ZeroMQ.
  // False, with `message` untouched, when every buffer is lent (or the prefix is too long).
  bool lend(zmq_msg_t& message, std::span<const std::byte> prefix) noexcept;

  std::size_t payload_size() const noexcept { return m_payload_size; }
  std::size_t buffers() const noexcept { return m_count; }
  // Buffers ZeroMQ has not handed back yet (for tests and the destructor's check).
  std::size_t outstanding() const noexcept;

private:
  struct Slot {
    std::unique_ptr<std::byte[]> bytes; // max_prefix, then the payload
    std::atomic<bool> lent{false};      // set here, cleared by ZeroMQ's I/O thread
  };
  static void give_back(void* data, void* slot) noexcept;

  std::size_t m_payload_size;
  std::size_t m_count;
  std::unique_ptr<Slot[]> m_slots;
  std::size_t m_next = 0;
};

} // namespace netprof::zeromq
