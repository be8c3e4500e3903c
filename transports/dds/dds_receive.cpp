// How a DdsEndpoint hears of samples and hands them to the core: --dds-notify listener, waitset
// or poll. The rest of the endpoint (entities, discovery, QoS refusals, send) is in
// dds_endpoint.cpp.

#include "dds_endpoint.hpp"

#include <netprof/cpu_relax.hpp>
#include <netprof/errors.hpp>

#include <algorithm>
#include <chrono>

namespace netprof::dds_parts {

namespace {

// What RTPS adds to a serialized sample in its DATA submessage: the submessage header (4), its
// fixed fields (20) and the serialized payload's header (4).
constexpr std::size_t sample_framing = 28;

} // namespace

const char* notify_meaning(Notify notify) noexcept
{
  switch (notify) {
  case Notify::listener:
    return "while netprof waits, Cyclone's receive thread hands each sample to netprof and "
           "writes the echo itself, as ddsperf does";
  case Notify::waitset:
    return "netprof's own thread sleeps in a waitset and takes each sample: one thread "
           "wake-up more than a listener";
  case Notify::poll:
    return "netprof's own thread takes in a loop without sleeping";
  }
  return "";
}

dds_entity_t DdsEndpoint::create_reader(dds_entity_t topic, const dds_qos_t* qos) noexcept
{
  if (m_notify == Notify::poll)
    return dds_create_reader(m_participant, topic, qos, nullptr);
  dds_listener_t* listener = dds_create_listener(this);
  dds_lset_data_available(listener, m_notify == Notify::listener
                                        ? &DdsEndpoint::on_data_available_lend
                                        : &DdsEndpoint::on_data_available);
  const dds_entity_t reader = dds_create_reader(m_participant, topic, qos, listener);
  dds_delete_listener(listener);
  return reader;
}

void DdsEndpoint::create_waitset()
{
  // The waitset wakes for matches and QoS refusals (read in check_statuses, which clears them),
  // so neither the end of discovery nor a refusal waits for a timeout; with a waitset for
  // samples too, with a listener for the listener's wake-up.
  m_waitset = dds_create_waitset(m_participant);
  throw_if_failed(m_waitset, "waitset");
  dds_set_status_mask(m_writer,
                      DDS_PUBLICATION_MATCHED_STATUS | DDS_OFFERED_INCOMPATIBLE_QOS_STATUS);
  // A listener is called only for the statuses the mask enables; with a listener set, Cyclone
  // calls it instead of raising the status, so the waitset does not wake for samples.
  const std::uint32_t data = m_notify == Notify::listener ? DDS_DATA_AVAILABLE_STATUS : 0;
  dds_set_status_mask(m_reader, DDS_SUBSCRIPTION_MATCHED_STATUS |
                                    DDS_REQUESTED_INCOMPATIBLE_QOS_STATUS | data);
  bool attached = dds_waitset_attach(m_waitset, m_writer, status_attachment) == DDS_RETCODE_OK &&
                  dds_waitset_attach(m_waitset, m_reader, status_attachment) == DDS_RETCODE_OK;
  if (m_notify == Notify::waitset) {
    m_read_condition = dds_create_readcondition(m_reader, DDS_ANY_STATE);
    throw_if_failed(m_read_condition, "read condition");
    attached = attached &&
               dds_waitset_attach(m_waitset, m_read_condition, data_attachment) == DDS_RETCODE_OK;
  } else if (m_notify == Notify::listener) {
    m_wake = dds_create_guardcondition(m_participant);
    throw_if_failed(m_wake, "guard condition");
    attached = attached && dds_waitset_attach(m_waitset, m_wake, wake_attachment) == DDS_RETCODE_OK;
  }
  if (!attached)
    throw TransportError("cannot attach the DDS waitset's conditions");
}

void DdsEndpoint::on_data_available(dds_entity_t /*reader*/, void* endpoint)
{
  static_cast<DdsEndpoint*>(endpoint)->m_data_waiting.store(true, std::memory_order_release);
}

void DdsEndpoint::on_data_available_lend(dds_entity_t /*reader*/, void* context)
{
  auto& endpoint = *static_cast<DdsEndpoint*>(context);
  MessageSink* sink = endpoint.m_handover.borrow();
  if (sink == nullptr) {
    endpoint.m_data_waiting.store(true, std::memory_order_release); // the core takes it
    return;
  }
  const int got = endpoint.take(*sink, true);
  if (got > 0)
    endpoint.m_delivered_by_listener += static_cast<std::uint64_t>(got);
  endpoint.m_handover.give_back();
  // Woken after the echo was written, so the core's wake-up is not in the round trip.
  if (got != 0)
    dds_set_guardcondition(endpoint.m_wake, true);
}

int DdsEndpoint::take(MessageSink& sink, bool always) noexcept
{
  // A plain load first: a look that finds nothing writes nothing the receive thread shares.
  if (!always && !m_data_waiting.load(std::memory_order_acquire)) {
    return 0;
  }
  // Cleared before looking: a sample arriving during the take sets it again.
  m_data_waiting.store(false, std::memory_order_release);
  void* samples[receive_batch] = {};
  dds_sample_info_t infos[receive_batch];
  // Null buffers: Cyclone lends its own samples, returned below, so nothing is copied twice.
  const dds_return_t taken = dds_take(m_reader, samples, infos, receive_batch, receive_batch);
  if (taken < 0) {
    return -1;
  }
  int delivered = 0;
  for (dds_return_t i = 0; i < taken; ++i) {
    if (!infos[i].valid_data) {
      continue; // a writer's unregistration or disposal: no message
    }
    // Empty for a stranger's typed sample no message fills: the core counts it as rejected.
    const std::span<const std::byte> message = m_codec.message_of(samples[i]);
    // The writer's instance handle names the sender; Cyclone never hands out 0 for one.
    sink.on_message(Delivery{message, 1, m_codec.serialized_size(message.size()) + sample_framing,
                             PeerHandle{infos[i].publication_handle}});
    ++delivered;
  }
  if (taken > 0) {
    dds_return_loan(m_reader, samples, taken);
  }
  if (taken == receive_batch) {
    m_data_waiting.store(true, std::memory_order_release); // maybe more than a batch waited
  }
  // A batch of nothing but unregistrations still took something: report it as received.
  return taken > 0 && delivered == 0 ? 1 : delivered;
}

ReceiveResult DdsEndpoint::taken_here(int got) noexcept
{
  if (got < 0)
    return ReceiveResult::failed;
  m_delivered_by_core += static_cast<std::uint64_t>(got);
  return got > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

ReceiveResult DdsEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  // Until discovery completes, every look checks it, so its time is the time it took.
  if (m_incompatible || (!m_discovered_at && !check_statuses())) {
    return ReceiveResult::failed;
  }
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

ReceiveResult DdsEndpoint::receive_in_waitset(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const int first = take(sink);
  if (first != 0) {
    return taken_here(first);
  }
  const Nanoseconds capped = std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  const auto deadline = Clock::now() + capped;
  for (;;) {
    const auto now = Clock::now();
    if (now >= m_next_status_check) {
      if (!check_statuses()) {
        return ReceiveResult::failed;
      }
      // Now and then a look that does not trust the flag, should Cyclone ever call the
      // listener before the sample is in the reader's history.
      if (const int got = take(sink, true); got != 0) {
        return taken_here(got);
      }
    }
    const Nanoseconds remaining = deadline - now;
    if (remaining <= Nanoseconds::zero()) {
      return ReceiveResult::timed_out;
    }
    dds_attach_t triggered[4];
    const dds_return_t woke = dds_waitset_wait(m_waitset, triggered, 4, remaining.count());
    if (woke < 0) {
      return ReceiveResult::failed;
    }
    bool data = false;
    for (dds_return_t i = 0; i < std::min<dds_return_t>(woke, 4); ++i) {
      if (triggered[i] == status_attachment && !check_statuses()) {
        return ReceiveResult::failed;
      }
      data = data || triggered[i] == data_attachment;
    }
    const int got = take(sink, data); // the read condition may wake us before the listener ran
    if (got != 0) {
      return taken_here(got);
    }
  }
}

ReceiveResult DdsEndpoint::receive_in_listener(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const std::uint64_t delivered_before = m_delivered_by_listener;
  const Nanoseconds capped = std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  const auto deadline = Clock::now() + capped;
  for (;;) {
    // What came while the sink was not lent (between two receives, or a non-blocking one).
    if (const int got = take(sink); got != 0)
      return taken_here(got);
    const auto now = Clock::now();
    if (now >= m_next_status_check && !check_statuses())
      return ReceiveResult::failed;
    const Nanoseconds remaining = deadline - now;
    if (remaining <= Nanoseconds::zero())
      return ReceiveResult::timed_out;
    // Only this wait lends the sink: the core touches nothing behind it until revoke().
    m_handover.lend(sink);
    dds_attach_t triggered[4];
    const dds_return_t woke = dds_waitset_wait(m_waitset, triggered, 4, remaining.count());
    m_handover.revoke();
    if (woke < 0)
      return ReceiveResult::failed;
    bool wake = false;
    dds_take_guardcondition(m_wake, &wake);
    for (dds_return_t i = 0; i < std::min<dds_return_t>(woke, 4); ++i)
      if (triggered[i] == status_attachment && !check_statuses())
        return ReceiveResult::failed;
    if (m_delivered_by_listener != delivered_before)
      return ReceiveResult::received;
  }
}

ReceiveResult DdsEndpoint::receive_by_polling(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const Nanoseconds capped = std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  const auto deadline = Clock::now() + capped;
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

} // namespace netprof::dds_parts
