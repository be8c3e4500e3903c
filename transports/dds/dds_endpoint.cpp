#include "dds_endpoint.hpp"

#include <dds/version.h>

#include <netprof/errors.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace netprof::dds_parts {

namespace {

// How often an idle or busy-polling endpoint looks at its matches and QoS statuses.
constexpr auto status_interval = std::chrono::milliseconds(10);

// How long an endpoint that met an incompatible peer stays in the domain when closed.
constexpr auto incompatible_linger = std::chrono::milliseconds(1000);

const char* policy_name(dds_qos_policy_id_t policy) noexcept
{
  switch (policy) {
  case DDS_RELIABILITY_QOS_POLICY_ID:
    return "reliability";
  case DDS_DURABILITY_QOS_POLICY_ID:
    return "durability";
  case DDS_DEADLINE_QOS_POLICY_ID:
    return "deadline";
  case DDS_LATENCYBUDGET_QOS_POLICY_ID:
    return "latency budget";
  case DDS_OWNERSHIP_QOS_POLICY_ID:
    return "ownership";
  case DDS_LIVELINESS_QOS_POLICY_ID:
    return "liveliness";
  case DDS_DESTINATIONORDER_QOS_POLICY_ID:
    return "destination order";
  case DDS_PRESENTATION_QOS_POLICY_ID:
    return "presentation";
  case DDS_DATA_REPRESENTATION_QOS_POLICY_ID:
    return "data representation";
  default:
    return "a QoS policy";
  }
}

std::uint32_t matched_readers(dds_entity_t writer) noexcept
{
  dds_publication_matched_status_t status{};
  return dds_get_publication_matched_status(writer, &status) == DDS_RETCODE_OK
             ? status.current_count
             : 0;
}

std::uint32_t matched_writers(dds_entity_t reader) noexcept
{
  dds_subscription_matched_status_t status{};
  return dds_get_subscription_matched_status(reader, &status) == DDS_RETCODE_OK
             ? status.current_count
             : 0;
}

// The largest message send() takes: its sample must stay within MaxSampleSize.
std::size_t max_message_of(const EndpointSettings& settings) noexcept
{
  return settings.header_bytes + (settings.payload_type == PayloadType::nested
                                      ? nested_max_payload
                                      : DdsEndpoint::max_payload_size);
}

std::size_t payload_of(const EndpointSettings& settings) noexcept
{
  return settings.message_bytes > settings.header_bytes
             ? settings.message_bytes - settings.header_bytes
             : default_payload_size;
}

} // namespace

void DdsEndpoint::throw_if_failed(dds_entity_t entity, const char* what) const
{
  if (entity < 0) {
    throw TransportError(std::string("cannot create the DDS ") + what + ": " +
                         dds_strretcode(entity));
  }
}

DdsEndpoint::DdsEndpoint(const EndpointSettings& settings)
    : m_publisher(settings.role == Role::publisher), m_notify(settings.notify), m_qos(settings.qos),
      m_expected_matches(m_publisher ? std::max<std::size_t>(settings.subscribers, 1) : 1),
      m_data_topic_name(settings.topic_prefix + "_data"),
      m_echo_topic_name(settings.topic_prefix + "_echo"),
      m_max_message_size(max_message_of(settings)),
      m_codec(choose_sample_type(settings.payload_type, settings.keys, payload_of(settings)),
              settings.header_bytes, m_max_message_size),
      m_keys(std::max<std::uint32_t>(settings.keys, 1)),
      m_requested_buffer_bytes(settings.queue_length_bytes), m_opened(Clock::now()),
      m_next_status_check(m_opened)
{
  const std::int32_t keep_all = keep_all_samples(
      settings.queue_length_bytes, settings.message_bytes > 0 ? settings.message_bytes : 128);
  std::string origin;
  const std::string config = domain_config(settings.loopback, origin, settings.interface);
  m_domain = std::make_unique<DomainLease>(settings.domain, config);
  try {
    m_participant = dds_create_participant(settings.domain, nullptr, nullptr);
    throw_if_failed(m_participant, "participant");
    const dds_topic_descriptor_t* type = m_codec.type().descriptor;
    const dds_entity_t data_topic =
        dds_create_topic(m_participant, type, m_data_topic_name.c_str(), nullptr, nullptr);
    throw_if_failed(data_topic, ("topic " + m_data_topic_name).c_str());
    const dds_entity_t echo_topic =
        dds_create_topic(m_participant, type, m_echo_topic_name.c_str(), nullptr, nullptr);
    throw_if_failed(echo_topic, ("topic " + m_echo_topic_name).c_str());

    dds_qos_t* qos = make_qos(m_qos, keep_all);
    m_writer =
        dds_create_writer(m_participant, m_publisher ? data_topic : echo_topic, qos, nullptr);
    m_reader = create_reader(m_publisher ? echo_topic : data_topic, qos);
    dds_delete_qos(qos);
    throw_if_failed(m_writer, "writer");
    throw_if_failed(m_reader, "reader");
    create_waitset();
  } catch (...) {
    if (m_participant > 0) {
      dds_delete(m_participant);
    }
    throw;
  }

  m_notes.push_back(std::string("Cyclone DDS ") + DDS_VERSION + ", domain " +
                    std::to_string(settings.domain) + ", configuration: " + origin);
  m_notes.push_back(
      "QoS " + describe(m_qos) + ", volatile, on both topics" +
      (m_qos.history == QosChoice::History::keep_all
           ? " (keep-all holds at most " + std::to_string(keep_all) + " samples per history: -q)"
           : std::string()));
  m_notes.push_back("sample type " + describe(m_codec.type()) +
                    (m_keys > 1 ? ", keyed: data round-robin over " + std::to_string(m_keys) +
                                      " instances (--dds-keys), control messages in instance 0"
                                : std::string()));
  m_notes.push_back(std::string("notification: --dds-notify ") + notify_name(m_notify) + " (" +
                    notify_meaning(m_notify) + ")");
  m_notes.push_back(m_publisher ? "writes " + m_data_topic_name + ", reads " + m_echo_topic_name
                                : "reads " + m_data_topic_name + ", writes " + m_echo_topic_name);
}

DdsEndpoint::~DdsEndpoint()
{
  if (m_incompatible) {
    // The peer learns of the mismatch only from our endpoints' discovery, which may reach it
    // after we noticed: stay a moment, so that it names the mismatch too instead of waiting
    // for its --wait.
    std::this_thread::sleep_for(incompatible_linger);
  }
  // Deleting the participant deletes its topics, writer, reader, condition and waitset.
  dds_delete(m_participant);
}

void DdsEndpoint::describe_incompatibility(dds_qos_policy_id_t policy, bool on_writer)
{
  const std::string self = m_publisher ? "this publisher" : "this subscriber";
  const std::string peer = m_publisher ? "a subscriber" : "the publisher";
  const std::string& topic = on_writer == m_publisher ? m_data_topic_name : m_echo_topic_name;
  std::string why;
  if (policy == DDS_RELIABILITY_QOS_POLICY_ID) {
    const char* own = reliability_name(m_qos.reliability);
    const char* other = reliability_name(m_qos.reliability == QosChoice::Reliability::reliable
                                             ? QosChoice::Reliability::best_effort
                                             : QosChoice::Reliability::reliable);
    why = peer + " is " + other + " and " + self + " " + own + " (on " + topic + " " + peer +
          "'s " + (on_writer ? "reader requests " : "writer offers ") + other + ", " + self +
          "'s " + (on_writer ? "writer offers " : "reader requests ") + own +
          "): DDS does not match them; give every process the same --dds-reliability";
  } else {
    why = "a peer on " + topic + " has an incompatible " + policy_name(policy) + " QoS (" + self +
          ": " + describe(m_qos) + ", volatile): DDS does not match them";
  }
  if (std::find(m_diagnoses.begin(), m_diagnoses.end(), why) == m_diagnoses.end()) {
    m_diagnoses.push_back(why);
  }
}

bool DdsEndpoint::check_statuses() noexcept
{
  m_writer_matches = matched_readers(m_writer);
  m_reader_matches = matched_writers(m_reader);
  if (!m_discovered_at && m_writer_matches >= m_expected_matches &&
      m_reader_matches >= m_expected_matches) {
    m_discovered_at = Clock::now();
  }
  dds_offered_incompatible_qos_status_t offered{};
  dds_requested_incompatible_qos_status_t requested{};
  const bool writer_refused =
      dds_get_offered_incompatible_qos_status(m_writer, &offered) == DDS_RETCODE_OK &&
      offered.total_count > 0;
  const bool reader_refused =
      dds_get_requested_incompatible_qos_status(m_reader, &requested) == DDS_RETCODE_OK &&
      requested.total_count > 0;
  if (writer_refused || reader_refused) {
    try {
      if (writer_refused) {
        describe_incompatibility(static_cast<dds_qos_policy_id_t>(offered.last_policy_id), true);
      }
      if (reader_refused) {
        describe_incompatibility(static_cast<dds_qos_policy_id_t>(requested.last_policy_id), false);
      }
    } catch (...) {
      // Out of memory while wording it: the run still ends, without the words.
    }
    m_incompatible = true;
  }
  m_next_status_check = Clock::now() + status_interval;
  return !m_incompatible;
}

SendOutcome DdsEndpoint::send(std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  if (message.size() > m_max_message_size) {
    return failure;
  }
  if (!m_publisher && !m_discovered_at && (!check_statuses() || !m_discovered_at)) {
    // A subscriber's hello sent before its writer is matched would be lost to discovery.
    return m_incompatible ? failure
                          : SendOutcome{SendResult::back_pressured, SendCause::connecting};
  }
  // Data messages round-robin over the instances in the order written, their sequence's order.
  const std::uint32_t key = m_keys > 1 && m_codec.is_kept(message)
                                ? static_cast<std::uint32_t>(m_data_written++ % m_keys)
                                : 0;
  const void* sample = m_codec.sample_of(message, key);
  if (sample == nullptr) {
    return failure; // larger than the type holds
  }
  const dds_return_t written = dds_write(m_writer, sample);
  if (written == DDS_RETCODE_OK) {
    return {};
  }
  if (written == DDS_RETCODE_TIMEOUT) {
    // Reliable: the readers have not acknowledged enough of what came before.
    return {SendResult::back_pressured, SendCause::queue_full};
  }
  return failure;
}

void DdsEndpoint::keep_payload(std::span<const std::byte> payload)
{
  m_codec.keep_payload(payload);
}

SendOutcome DdsEndpoint::flush() noexcept
{
  dds_write_flush(m_writer);
  return {};
}

EndpointFacts DdsEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "dds";
  facts.local_addresses.push_back((m_publisher ? m_data_topic_name : m_echo_topic_name) +
                                  " (writer)");
  facts.local_addresses.push_back((m_publisher ? m_echo_topic_name : m_data_topic_name) +
                                  " (reader)");
  facts.max_message_size = m_max_message_size;
  facts.size_hint = m_codec.type().payload == PayloadType::nested
                        ? "a nested sample takes about 1.5 B a payload byte, and netprof's DDS "
                          "samples at most 1 MiB serialized"
                        : "netprof's DDS samples carry at most 1 MiB of payload";
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.notes = m_notes;
  if (m_discovered_at) {
    facts.discovery_seconds = std::chrono::duration<double>(*m_discovered_at - m_opened).count();
  }
  facts.notes.push_back("matched when last looked: the writer " + std::to_string(m_writer_matches) +
                        " remote reader(s), the reader " + std::to_string(m_reader_matches) +
                        " remote writer(s)");
  if (m_notify == Notify::listener) {
    facts.notes.push_back(
        std::to_string(m_delivered_by_listener) + " of " +
        std::to_string(m_delivered_by_listener + m_delivered_by_core) +
        " samples handed over on Cyclone's receive thread (the rest came while netprof was not "
        "waiting in a blocking receive, and its own thread took them)");
  }
  facts.diagnoses = m_diagnoses;
  if (!m_discovered_at && !m_incompatible) {
    facts.diagnoses.push_back(
        "discovery never completed: the writer matched " + std::to_string(m_writer_matches) +
        " and the reader " + std::to_string(m_reader_matches) + " of the " +
        std::to_string(m_expected_matches) +
        " remote endpoint(s) expected on each topic (same --dds-domain, --dds, --payload-type, "
        "--dds-keys, -s with struct, and configuration on every process?)");
  }
  return facts;
}

} // namespace netprof::dds_parts
