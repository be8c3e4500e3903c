#include "endpoint_support.hpp"

#include <iostream>

namespace netprof::shm {

void Failure::announce() noexcept
{
  if (m_announced)
    return;
  m_announced = true;
  try {
    std::cerr << "netprof: " << (m_reason.empty() ? "the shared-memory transport failed" : m_reason)
              << "\n";
  } catch (...) {
  }
}

bool settle_failure(const Segment* segment, const std::string& name, bool check_size,
                    Failure& failure) noexcept
{
  if (!failure.happened() && segment != nullptr &&
      (segment->lost() || (check_size && segment->shrunk())))
    failure.record([&] { return segment->truncation_text(object_path(name)); });
  if (!failure.happened())
    return false;
  failure.announce();
  return true;
}

std::string strategy_note()
{
  return "waiting: receive(0) polls without a syscall; a blocking receive sleeps on a futex "
         "word in the segment (FUTEX_WAIT with the timeout), and writers FUTEX_WAKE only when a "
         "sleeper is registered, so busy-polling readers cost them nothing";
}

std::string history_note(History history)
{
  if (history == History::keep_all)
    return "history keep-all: the publisher waits for the slowest live subscriber (send is "
           "back-pressured while the ring is full; a subscriber whose process died is dropped); "
           "the publisher writes data records in place and subscribers read them there (no copy)";
  return "history keep-last: the publisher never waits (it writes data records in place); each "
         "subscriber copies a record out and "
         "re-checks its header, so a torn read is never delivered; a lapped subscriber skips "
         "ahead and the core counts what it lost";
}

void add_ring_facts(EndpointFacts& facts, const RingView& ring)
{
  facts.notes.push_back("ring " + std::to_string(ring.capacity()) + " B: largest message " +
                        std::to_string(ring.max_message_size()) +
                        " B (half the ring minus 8 B of record header; for larger messages "
                        "raise -q to about twice the message)");
}

} // namespace netprof::shm
