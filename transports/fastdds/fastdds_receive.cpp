// How a FastDdsEndpoint hears of samples and hands them to the core: --fastdds-notify listener,
// waitset or poll. The rest of the endpoint (entities, discovery, QoS refusals, send) is in
// fastdds_endpoint.cpp.

#include "fastdds_endpoint.hpp"

#include <netprof/cpu_relax.hpp>

#include <fastdds/dds/subscriber/SampleInfo.hpp>

#include <algorithm>
#include <chrono>

namespace netprof::fastdds_parts {

namespace {

namespace dds = eprosima::fastdds::dds;

// What RTPS adds to a sample's bytes in its DATA submessage: the submessage header (4), its
// fixed fields (20), the serialized payload's header (4) and the sequence's length (4), as for
// the dds transport.
constexpr std::size_t sample_framing = 32;

// The writer's GUID, folded to the core's 64-bit handle (FNV-1a); never 0, which means none.
PeerHandle sender_of(const dds::SampleInfo& info) noexcept
{
  std::uint64_t hash = 14695981039346656037ull;
  constexpr std::size_t guid_bytes = 16;
  const eprosima::fastrtps::rtps::octet* guid = info.publication_handle.value;
  for (std::size_t i = 0; i < guid_bytes; ++i)
    hash = (hash ^ guid[i]) * 1099511628211ull;
  return PeerHandle{hash == 0 ? 1 : hash};
}

} // namespace

const char* notify_meaning(Notify notify) noexcept
{
  switch (notify) {
  case Notify::listener:
    return "while netprof waits, Fast DDS's receive thread hands each sample to netprof in "
           "on_data_available and writes the echo itself";
  case Notify::waitset:
    return "netprof's own thread sleeps in a Fast DDS WaitSet on a ReadCondition and takes each "
           "sample: one thread wake-up more than a listener";
  case Notify::poll:
    return "netprof's own thread takes in a loop without sleeping";
  }
  return "";
}

void FastDdsEndpoint::on_data_available(dds::DataReader* /*reader*/)
{
  if (m_notify != Notify::listener) {
    m_data_waiting.store(true, std::memory_order_release);
    return;
  }
  MessageSink* sink = m_handover.borrow();
  if (sink == nullptr) {
    m_data_waiting.store(true, std::memory_order_release); // the core takes it
    return;
  }
  const int got = take(*sink, true);
  if (got > 0)
    m_delivered_by_listener += static_cast<std::uint64_t>(got);
  m_handover.give_back();
  // Woken after the echo was written, so the core's wake-up is not in the round trip.
  if (got != 0)
    m_wake.set_trigger_value(true);
}

int FastDdsEndpoint::take(MessageSink& sink, bool always) noexcept
{
  if (!always && !m_data_waiting.load(std::memory_order_acquire))
    return 0;
  // Cleared before looking: a sample arriving during the take sets it again.
  m_data_waiting.store(false, std::memory_order_release);
  int taken = 0;
  int delivered = 0;
  dds::SampleInfo info;
  // One sample at a time into m_taken, whose buffer is reused: nothing allocated per sample.
  while (taken < receive_batch &&
         m_reader->take_next_sample(&m_taken, &info) == ReturnCode_t::RETCODE_OK) {
    ++taken;
    if (!info.valid_data)
      continue; // a writer's unregistration or disposal: no message
    const std::size_t size = m_taken.bytes.size();
    sink.on_message(Delivery{m_taken.bytes, 1, size + sample_framing, sender_of(info)});
    ++delivered;
  }
  if (taken == receive_batch)
    m_data_waiting.store(true, std::memory_order_release); // maybe more than a batch waited
  // A batch of nothing but unregistrations still took something: report it as received.
  return taken > 0 && delivered == 0 ? 1 : delivered;
}

ReceiveResult FastDdsEndpoint::taken_here(int got) noexcept
{
  if (got < 0)
    return ReceiveResult::failed;
  m_delivered_by_core += static_cast<std::uint64_t>(got);
  return got > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

ReceiveResult FastDdsEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  // Until discovery completes, every look checks it, so its time is the time it took.
  if (m_incompatible || (!m_discovered_at && !check_statuses()))
    return ReceiveResult::failed;
  switch (m_notify) {
  case Notify::listener:
    return receive_in_listener(sink, timeout);
  case Notify::poll:
    return receive_by_polling(sink, timeout);
  case Notify::waitset:
    break;
  }
  return receive_in_waitset(sink, timeout);
}

bool FastDdsEndpoint::wait(Clock::time_point deadline, bool& data) noexcept
{
  const auto remaining =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now());
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(remaining);
  const eprosima::fastrtps::Duration_t timeout{
      static_cast<std::int32_t>(std::max<std::int64_t>(seconds.count(), 0)),
      static_cast<std::uint32_t>(std::max<std::int64_t>((remaining - seconds).count(), 0))};
  const ReturnCode_t woke = m_waitset.wait(m_triggered, timeout);
  if (woke == ReturnCode_t::RETCODE_TIMEOUT)
    return true;
  if (woke != ReturnCode_t::RETCODE_OK)
    return false;
  bool statuses = false;
  for (const dds::Condition* condition : m_triggered) {
    data = data || condition == m_read_condition;
    statuses = statuses || (condition != m_read_condition && condition != &m_wake);
  }
  return !statuses || check_statuses();
}

ReceiveResult FastDdsEndpoint::receive_in_waitset(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (const int first = take(sink); first != 0)
    return taken_here(first);
  const auto deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  for (;;) {
    const auto now = Clock::now();
    if (now >= m_next_status_check) {
      if (!check_statuses())
        return ReceiveResult::failed;
      // Now and then a look that does not trust the flag.
      if (const int got = take(sink, true); got != 0)
        return taken_here(got);
    }
    if (now >= deadline)
      return ReceiveResult::timed_out;
    bool data = false;
    if (!wait(deadline, data))
      return ReceiveResult::failed;
    // The read condition may wake us before the listener ran: then the flag is not trusted.
    if (const int got = take(sink, data); got != 0)
      return taken_here(got);
  }
}

ReceiveResult FastDdsEndpoint::receive_in_listener(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const std::uint64_t delivered_before = m_delivered_by_listener;
  const auto deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  for (;;) {
    // What came while the sink was not lent (between two receives, or a non-blocking one).
    if (const int got = take(sink); got != 0)
      return taken_here(got);
    const auto now = Clock::now();
    if (now >= m_next_status_check && !check_statuses())
      return ReceiveResult::failed;
    if (now >= deadline)
      return ReceiveResult::timed_out;
    // Only this wait lends the sink: the core touches nothing behind it until revoke().
    m_handover.lend(sink);
    bool data = false;
    const bool waited = wait(deadline, data);
    m_handover.revoke();
    m_wake.set_trigger_value(false);
    if (!waited)
      return ReceiveResult::failed;
    if (m_delivered_by_listener != delivered_before)
      return ReceiveResult::received;
  }
}

ReceiveResult FastDdsEndpoint::receive_by_polling(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const auto deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  for (;;) {
    if (const int got = take(sink, true); got != 0)
      return taken_here(got);
    const auto now = Clock::now();
    if (now >= m_next_status_check && !check_statuses())
      return ReceiveResult::failed;
    if (now >= deadline)
      return ReceiveResult::timed_out;
    cpu_relax(); // between empty takes
  }
}

} // namespace netprof::fastdds_parts
