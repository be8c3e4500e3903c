#include "fastdds_endpoint.hpp"

#include <netprof/errors.hpp>

#include <fastdds/dds/core/status/StatusMask.hpp>
#include <fastdds/dds/publisher/qos/PublisherQos.hpp>
#include <fastdds/dds/subscriber/qos/SubscriberQos.hpp>
#include <fastrtps/config.h>

namespace netprof::fastdds_parts {

namespace {

namespace dds = eprosima::fastdds::dds;

const transport_common::DdsVendorWords fast_dds_words{
    "fastdds", "Fast DDS's", "--fastdds-reliability (a Cyclone peer: --dds-reliability)",
    "--fastdds-domain, --fastdds and configuration"};

// What Fast DDS refused of a peer's QoS, when it did: reliability whenever it is among the
// policies refused, as the one netprof's options set; else the last one Fast DDS counted. (Its
// last_policy_id is the highest-numbered of those refused at the last match: once, in a test
// under ASan whose two endpoints differed only in reliability, it named a policy netprof has no
// name for.)
transport_common::DdsRefusal refusal_of(bool refused,
                                        const dds::IncompatibleQosStatus& status) noexcept
{
  const auto reliability = static_cast<std::size_t>(dds::RELIABILITY_QOS_POLICY_ID);
  const bool of_reliability =
      reliability < status.policies.size() && status.policies[reliability].count > 0;
  const dds::QosPolicyId_t policy =
      of_reliability ? dds::RELIABILITY_QOS_POLICY_ID : status.last_policy_id;
  return {refused, policy == dds::RELIABILITY_QOS_POLICY_ID, policy_name(policy)};
}

} // namespace

FastDdsEndpoint::FastDdsEndpoint(const EndpointSettings& settings)
    : DdsReceiveLoops(settings, fast_dds_words),
      m_max_message_size(max_payload_size + settings.header_bytes)
{
  const std::int32_t keep_all = keep_all_samples(
      settings.queue_length_bytes, settings.message_bytes > 0 ? settings.message_bytes : 128);
  m_participant =
      std::make_unique<Participant>(settings.domain, settings.loopback, settings.interface,
                                    settings.topic_prefix, m_max_message_size);
  create_entities(keep_all);
  create_waitset();
  m_taken.received.reserve(m_max_message_size);
  add_notes(settings.domain, keep_all);
}

void FastDdsEndpoint::create_entities(std::int32_t keep_all)
{
  dds::DomainParticipant& participant = m_participant->get();
  m_dds_publisher = participant.create_publisher(dds::PUBLISHER_QOS_DEFAULT);
  m_dds_subscriber = participant.create_subscriber(dds::SUBSCRIBER_QOS_DEFAULT);
  if (m_dds_publisher == nullptr || m_dds_subscriber == nullptr)
    throw TransportError("cannot create the Fast DDS publisher and subscriber");
  dds::Topic& written = m_publisher ? m_participant->data_topic() : m_participant->echo_topic();
  dds::Topic& read = m_publisher ? m_participant->echo_topic() : m_participant->data_topic();
  m_writer = m_dds_publisher->create_datawriter(&written, writer_qos(m_qos, keep_all), nullptr,
                                                dds::StatusMask::none());
  // Polling needs no listener; the others learn of samples from on_data_available.
  const bool listens = m_notify != Notify::poll;
  m_reader = m_dds_subscriber->create_datareader(
      &read, reader_qos(m_qos, keep_all), listens ? this : nullptr,
      listens ? dds::StatusMask::data_available() : dds::StatusMask::none());
  if (m_writer == nullptr || m_reader == nullptr)
    throw TransportError("cannot create the Fast DDS writer and reader (QoS " + describe(m_qos) +
                         ")");
}

void FastDdsEndpoint::create_waitset()
{
  // The waitset wakes for matches and QoS refusals (read in check_statuses, which clears them),
  // so neither the end of discovery nor a refusal waits for a timeout; with a read condition
  // for samples (waitset), with a guard condition the listener sets (listener).
  m_writer->get_statuscondition().set_enabled_statuses(
      dds::StatusMask::publication_matched() << dds::StatusMask::offered_incompatible_qos());
  m_reader->get_statuscondition().set_enabled_statuses(
      dds::StatusMask::subscription_matched() << dds::StatusMask::requested_incompatible_qos());
  bool attached =
      m_waitset.attach_condition(m_writer->get_statuscondition()) == ReturnCode_t::RETCODE_OK &&
      m_waitset.attach_condition(m_reader->get_statuscondition()) == ReturnCode_t::RETCODE_OK;
  if (m_notify == Notify::waitset) {
    m_read_condition = m_reader->create_readcondition(dds::ANY_SAMPLE_STATE, dds::ANY_VIEW_STATE,
                                                      dds::ANY_INSTANCE_STATE);
    attached = attached && m_read_condition != nullptr &&
               m_waitset.attach_condition(*m_read_condition) == ReturnCode_t::RETCODE_OK;
  } else if (m_notify == Notify::listener) {
    attached = attached && m_waitset.attach_condition(m_wake) == ReturnCode_t::RETCODE_OK;
  }
  if (!attached)
    throw TransportError("cannot attach the Fast DDS waitset's conditions");
  m_triggered.reserve(4);
}

void FastDdsEndpoint::add_notes(std::uint32_t domain, std::int32_t keep_all)
{
  m_notes.push_back(std::string("eProsima Fast DDS ") + FASTRTPS_VERSION_STR + ", domain " +
                    std::to_string(domain) + ", configuration: " + m_participant->origin());
  m_notes.push_back(qos_note(keep_all));
  m_notes.push_back(notify_note(notify_meaning(m_notify)));
  m_notes.push_back(topics_note());
}

FastDdsEndpoint::~FastDdsEndpoint()
{
  linger_if_incompatible();
  // The listener must not run once this object is gone: detached before the entities go.
  if (m_reader != nullptr)
    m_reader->set_listener(nullptr);
  m_waitset.detach_condition(m_wake);
  if (m_read_condition != nullptr) {
    m_waitset.detach_condition(*m_read_condition);
    m_reader->delete_readcondition(m_read_condition);
  }
  m_waitset.detach_condition(m_writer->get_statuscondition());
  m_waitset.detach_condition(m_reader->get_statuscondition());
  m_participant.reset(); // deletes the writer, reader, publisher and subscriber
}

// A sample written before discovery is done may reach nobody. A subscriber's hello waits until
// its writer and reader are both matched. The publisher's samples wait until its writer has
// matched a reader: Fast DDS matches each direction apart, so a subscriber's hello can come
// through before the publisher's writer knows that subscriber's reader, and the answer would be
// lost (the contract test's adopting reply, 1 run in 40).
bool FastDdsEndpoint::ready_to_send() noexcept
{
  if (!check_statuses())
    return false;
  return m_publisher ? m_writer_matches > 0 : m_discovered_at.has_value();
}

bool FastDdsEndpoint::check_statuses() noexcept
{
  // A status Fast DDS cannot read leaves the count as last read.
  std::uint32_t writer_matches = m_writer_matches;
  std::uint32_t reader_matches = m_reader_matches;
  dds::PublicationMatchedStatus published;
  dds::SubscriptionMatchedStatus subscribed;
  if (m_writer->get_publication_matched_status(published) == ReturnCode_t::RETCODE_OK)
    writer_matches = static_cast<std::uint32_t>(published.current_count);
  if (m_reader->get_subscription_matched_status(subscribed) == ReturnCode_t::RETCODE_OK)
    reader_matches = static_cast<std::uint32_t>(subscribed.current_count);
  dds::OfferedIncompatibleQosStatus offered;
  dds::RequestedIncompatibleQosStatus requested;
  const bool writer_refused =
      m_writer->get_offered_incompatible_qos_status(offered) == ReturnCode_t::RETCODE_OK &&
      offered.total_count > 0;
  const bool reader_refused =
      m_reader->get_requested_incompatible_qos_status(requested) == ReturnCode_t::RETCODE_OK &&
      requested.total_count > 0;
  return record_statuses(writer_matches, reader_matches, refusal_of(writer_refused, offered),
                         refusal_of(reader_refused, requested));
}

SendOutcome FastDdsEndpoint::send(std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  if (message.size() > m_max_message_size)
    return failure;
  if (!m_discovered_at && !ready_to_send()) {
    return m_incompatible ? failure
                          : SendOutcome{SendResult::back_pressured, SendCause::connecting};
  }
  MessageSample sample;
  sample.bytes = message; // serialized from the core's buffer: nothing copied before
  // write() is false when the writer waited max_blocking_time for room (keep-all, or reliable
  // with too much unacknowledged): Fast DDS's bool write says no more, and the size, the only
  // other cause netprof could meet, was checked above.
  if (m_writer->write(&sample))
    return {};
  return {SendResult::back_pressured, SendCause::queue_full};
}

EndpointFacts FastDdsEndpoint::facts() const
{
  EndpointFacts facts = common_facts();
  facts.max_message_size = m_max_message_size;
  facts.size_hint = "netprof's DDS samples carry at most 1 MiB of payload";
  return facts;
}

} // namespace netprof::fastdds_parts
