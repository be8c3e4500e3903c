#include "zero_copy_pool.hpp"

#include <cstring>

namespace netprof::zeromq {

ZeroCopyPool::ZeroCopyPool(std::span<const std::byte> payload, std::size_t buffers)
    : m_payload_size(payload.size()), m_count(buffers), m_slots(std::make_unique<Slot[]>(buffers))
{
  for (std::size_t i = 0; i < m_count; ++i) {
    m_slots[i].bytes = std::make_unique_for_overwrite<std::byte[]>(max_prefix + m_payload_size);
    std::memcpy(m_slots[i].bytes.get() + max_prefix, payload.data(), m_payload_size);
  }
}

bool ZeroCopyPool::lend(zmq_msg_t& message, std::span<const std::byte> prefix) noexcept
{
  if (prefix.size() > max_prefix) {
    return false;
  }
  // Round robin from the last one lent: buffers come back in about the order they went.
  for (std::size_t tried = 0; tried < m_count; ++tried) {
    Slot& slot = m_slots[m_next];
    m_next = m_next + 1 == m_count ? 0 : m_next + 1;
    // Acquire: ZeroMQ's I/O thread finished reading the buffer before it released it.
    if (slot.lent.load(std::memory_order_acquire)) {
      continue;
    }
    std::byte* start = slot.bytes.get() + (max_prefix - prefix.size());
    std::memcpy(start, prefix.data(), prefix.size());
    slot.lent.store(true, std::memory_order_relaxed);
    if (zmq_msg_init_data(&message, start, prefix.size() + m_payload_size, &ZeroCopyPool::give_back,
                          &slot) != 0) {
      slot.lent.store(false, std::memory_order_relaxed); // ZeroMQ could not record the loan
      return false;
    }
    return true;
  }
  return false;
}

void ZeroCopyPool::give_back(void*, void* slot) noexcept
{
  static_cast<Slot*>(slot)->lent.store(false, std::memory_order_release);
}

std::size_t ZeroCopyPool::outstanding() const noexcept
{
  std::size_t count = 0;
  for (std::size_t i = 0; i < m_count; ++i) {
    count += m_slots[i].lent.load(std::memory_order_acquire) ? 1 : 0;
  }
  return count;
}

} // namespace netprof::zeromq
