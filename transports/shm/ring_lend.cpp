// RingWriter's lending: the caller writes a record in place, in the ring, instead of handing
// write() a copy (MessageLender).

#include "ring.hpp"

namespace netprof::shm {

RingWriter::Lent RingWriter::lend(std::size_t length) noexcept
{
  Lent lent;
  lent.result = open_record(length);
  if (lent.result != WriteResult::written)
    return lent;
  // keep_last: the invalidations open_record() stored come before any byte the caller writes
  // over the old records, as write()'s release stores order them (a compiler barrier on x86).
  std::atomic_thread_fence(std::memory_order_release);
  lent.holds_payload =
      m_run.active && m_run.length == length && m_tail >= m_run.start + m_ring.capacity();
  m_lent_length = length;
  lent.bytes = std::span(m_ring.data() + (m_tail & m_mask) + record_header_size, length);
  return lent;
}

void RingWriter::commit_lent() noexcept
{
  const bool continues = m_run.active && m_run.length == m_lent_length;
  if (!continues)
    m_run = LentRun{m_tail, m_lent_length, (m_tail & m_mask) == 0};
  close_record(m_lent_length);
}

void RingWriter::abandon_lent() noexcept
{
  // The room stays ours for the next record (its padding, if any, stands: readers skip it);
  // whatever the caller wrote there is no payload any more.
  m_run.active = false;
}

} // namespace netprof::shm
