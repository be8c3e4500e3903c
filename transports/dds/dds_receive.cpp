// How a DdsEndpoint hears of samples and hands them to the core: --dds-notify listener, waitset
// or poll, with Cyclone's listener, waitset and take under the loops both DDS transports share
// (common/dds_receive_loops.hpp). The rest of the endpoint (entities, discovery, QoS refusals,
// send) is in dds_endpoint.cpp.

#include "dds_endpoint.hpp"

#include <netprof/errors.hpp>

#include <algorithm>

namespace netprof::dds_parts {

namespace {

// What RTPS adds to a serialized sample in its DATA submessage: the submessage header (4), its
// fixed fields (20) and the serialized payload's header (4).
constexpr std::size_t sample_framing = 28;

} // namespace

const char* notify_meaning(transport_common::DdsNotify notify) noexcept
{
  using Notify = transport_common::DdsNotify;
  switch (notify) {
  case Notify::listener:
    return "while netprof waits, Cyclone's receive thread hands each sample to netprof and "
           "writes the echo, or a ping-pong publisher's next probe, itself, as ddsperf does";
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
  static_cast<DdsEndpoint*>(endpoint)->mark_data_waiting();
}

void DdsEndpoint::on_data_available_lend(dds_entity_t /*reader*/, void* endpoint)
{
  static_cast<DdsEndpoint*>(endpoint)->hand_over_on_listener_thread();
}

void DdsEndpoint::wake_core() noexcept
{
  dds_set_guardcondition(m_wake, true);
}

void DdsEndpoint::clear_wake() noexcept
{
  bool wake = false;
  dds_take_guardcondition(m_wake, &wake);
}

int DdsEndpoint::take(MessageSink& sink, bool always) noexcept
{
  if (!begin_take(always))
    return 0;
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
  return end_take(taken, delivered, receive_batch);
}

ReceiveResult DdsEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  return receive_as_notified(sink, timeout);
}

bool DdsEndpoint::wait(Nanoseconds remaining, bool& data) noexcept
{
  dds_attach_t triggered[4];
  const dds_return_t woke = dds_waitset_wait(m_waitset, triggered, 4, remaining.count());
  if (woke < 0) {
    return false;
  }
  for (dds_return_t i = 0; i < std::min<dds_return_t>(woke, 4); ++i) {
    if (triggered[i] == status_attachment && !check_statuses()) {
      return false;
    }
    data = data || triggered[i] == data_attachment;
  }
  return true;
}

} // namespace netprof::dds_parts
