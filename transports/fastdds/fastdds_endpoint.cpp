#include "fastdds_endpoint.hpp"

#include <netprof/errors.hpp>

#include <fastdds/dds/core/status/StatusMask.hpp>
#include <fastdds/dds/publisher/qos/PublisherQos.hpp>
#include <fastdds/dds/subscriber/qos/SubscriberQos.hpp>
#include <fastrtps/config.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace netprof::fastdds_parts {

namespace {

namespace dds = eprosima::fastdds::dds;

// How often an idle or busy-polling endpoint looks at its matches and QoS statuses.
constexpr auto status_interval = std::chrono::milliseconds(10);
// How long an endpoint that met an incompatible peer stays in the domain when closed, so that
// the peer names the mismatch too (the dds transport's reason and value).
constexpr auto incompatible_linger = std::chrono::milliseconds(1000);

} // namespace

FastDdsEndpoint::FastDdsEndpoint(const EndpointSettings& settings)
    : m_publisher(settings.role == Role::publisher), m_notify(settings.notify), m_qos(settings.qos),
      m_expected_matches(m_publisher ? std::max<std::size_t>(settings.subscribers, 1) : 1),
      m_data_topic_name(settings.topic_prefix + "_data"),
      m_echo_topic_name(settings.topic_prefix + "_echo"),
      m_max_message_size(max_payload_size + settings.header_bytes),
      m_requested_buffer_bytes(settings.queue_length_bytes), m_opened(Clock::now()),
      m_next_status_check(m_opened)
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
  m_notes.push_back(
      "QoS " + describe(m_qos) + ", volatile, on both topics" +
      (m_qos.history == QosChoice::History::keep_all
           ? " (keep-all holds at most " + std::to_string(keep_all) + " samples per history: -q)"
           : std::string()));
  m_notes.push_back(std::string("notification: --fastdds-notify ") + notify_name(m_notify) + " (" +
                    notify_meaning(m_notify) + ")");
  m_notes.push_back(m_publisher ? "writes " + m_data_topic_name + ", reads " + m_echo_topic_name
                                : "reads " + m_data_topic_name + ", writes " + m_echo_topic_name);
}

FastDdsEndpoint::~FastDdsEndpoint()
{
  if (m_incompatible)
    std::this_thread::sleep_for(incompatible_linger);
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

void FastDdsEndpoint::describe_incompatibility(dds::QosPolicyId_t policy, bool on_writer)
{
  const std::string self = m_publisher ? "this publisher" : "this subscriber";
  const std::string peer = m_publisher ? "a subscriber" : "the publisher";
  const std::string& topic = on_writer == m_publisher ? m_data_topic_name : m_echo_topic_name;
  std::string why;
  if (policy == dds::RELIABILITY_QOS_POLICY_ID) {
    const char* own = reliability_name(m_qos.reliability);
    const char* other = reliability_name(m_qos.reliability == QosChoice::Reliability::reliable
                                             ? QosChoice::Reliability::best_effort
                                             : QosChoice::Reliability::reliable);
    why = peer + " is " + other + " and " + self + " " + own + " (on " + topic + " " + peer +
          "'s " + (on_writer ? "reader requests " : "writer offers ") + other + ", " + self +
          "'s " + (on_writer ? "writer offers " : "reader requests ") + own +
          "): DDS does not match them; give every process the same --fastdds-reliability (a "
          "Cyclone peer: --dds-reliability)";
  } else {
    why = "a peer on " + topic + " has an incompatible " + policy_name(policy) + " QoS (" + self +
          ": " + describe(m_qos) + ", volatile): DDS does not match them";
  }
  if (std::find(m_diagnoses.begin(), m_diagnoses.end(), why) == m_diagnoses.end())
    m_diagnoses.push_back(why);
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
  dds::PublicationMatchedStatus published;
  dds::SubscriptionMatchedStatus subscribed;
  if (m_writer->get_publication_matched_status(published) == ReturnCode_t::RETCODE_OK)
    m_writer_matches = static_cast<std::uint32_t>(published.current_count);
  if (m_reader->get_subscription_matched_status(subscribed) == ReturnCode_t::RETCODE_OK)
    m_reader_matches = static_cast<std::uint32_t>(subscribed.current_count);
  if (!m_discovered_at && m_writer_matches >= m_expected_matches &&
      m_reader_matches >= m_expected_matches)
    m_discovered_at = Clock::now();
  dds::OfferedIncompatibleQosStatus offered;
  dds::RequestedIncompatibleQosStatus requested;
  const bool writer_refused =
      m_writer->get_offered_incompatible_qos_status(offered) == ReturnCode_t::RETCODE_OK &&
      offered.total_count > 0;
  const bool reader_refused =
      m_reader->get_requested_incompatible_qos_status(requested) == ReturnCode_t::RETCODE_OK &&
      requested.total_count > 0;
  if (writer_refused || reader_refused) {
    try {
      if (writer_refused)
        describe_incompatibility(offered.last_policy_id, true);
      if (reader_refused)
        describe_incompatibility(requested.last_policy_id, false);
    } catch (...) {
      // Out of memory while wording it: the run still ends, without the words.
    }
    m_incompatible = true;
  }
  m_next_status_check = Clock::now() + status_interval;
  return !m_incompatible;
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
  EndpointFacts facts;
  facts.transport = "fastdds";
  facts.local_addresses.push_back((m_publisher ? m_data_topic_name : m_echo_topic_name) +
                                  " (writer)");
  facts.local_addresses.push_back((m_publisher ? m_echo_topic_name : m_data_topic_name) +
                                  " (reader)");
  facts.max_message_size = m_max_message_size;
  facts.size_hint = "netprof's DDS samples carry at most 1 MiB of payload";
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.notes = m_notes;
  if (m_discovered_at)
    facts.discovery_seconds = std::chrono::duration<double>(*m_discovered_at - m_opened).count();
  facts.notes.push_back("matched when last looked: the writer " + std::to_string(m_writer_matches) +
                        " remote reader(s), the reader " + std::to_string(m_reader_matches) +
                        " remote writer(s)");
  if (m_notify == Notify::listener)
    facts.notes.push_back(
        std::to_string(m_delivered_by_listener) + " of " +
        std::to_string(m_delivered_by_listener + m_delivered_by_core) +
        " samples handed over on Fast DDS's receive thread (the rest came while netprof was not "
        "waiting in a blocking receive, and its own thread took them)");
  facts.diagnoses = m_diagnoses;
  if (!m_discovered_at && !m_incompatible)
    facts.diagnoses.push_back(
        "discovery never completed: the writer matched " + std::to_string(m_writer_matches) +
        " and the reader " + std::to_string(m_reader_matches) + " of the " +
        std::to_string(m_expected_matches) +
        " remote endpoint(s) expected on each topic (same --fastdds-domain, --fastdds and "
        "configuration on every process?)");
  return facts;
}

} // namespace netprof::fastdds_parts
