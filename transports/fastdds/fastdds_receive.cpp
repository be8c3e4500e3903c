// How a FastDdsEndpoint hears of samples and hands them to the core: --fastdds-notify listener,
// waitset or poll, with Fast DDS's listener, waitset and take under the loops both DDS
// transports share (common/dds_receive_loops.hpp). The rest of the endpoint (entities,
// discovery, QoS refusals, send) is in fastdds_endpoint.cpp.

#include "fastdds_endpoint.hpp"

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

const char* notify_meaning(transport_common::DdsNotify notify) noexcept
{
  using Notify = transport_common::DdsNotify;
  switch (notify) {
  case Notify::listener:
    return "while netprof waits, Fast DDS's receive thread hands each sample to netprof in "
           "on_data_available and writes the echo, or a ping-pong publisher's next probe, itself";
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
  if (m_notify == Notify::listener)
    hand_over_on_listener_thread();
  else
    mark_data_waiting();
}

void FastDdsEndpoint::wake_core() noexcept
{
  m_wake.set_trigger_value(true);
}

void FastDdsEndpoint::clear_wake() noexcept
{
  m_wake.set_trigger_value(false);
}

int FastDdsEndpoint::take(MessageSink& sink, bool always) noexcept
{
  if (!begin_take(always))
    return 0;
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
  return end_take(taken, delivered, receive_batch);
}

ReceiveResult FastDdsEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  return receive_as_notified(sink, timeout);
}

bool FastDdsEndpoint::wait(Nanoseconds remaining, bool& data) noexcept
{
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

} // namespace netprof::fastdds_parts
