#include "dds_endpoint.hpp"

#include <dds/version.h>

#include <netprof/errors.hpp>

#include <algorithm>

namespace netprof::dds_parts {

namespace {

const transport_common::DdsVendorWords cyclone_words{
    "dds", "Cyclone's", "--dds-reliability",
    "--dds-domain, --dds, --payload-type, --dds-keys, -s with struct, and configuration"};

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

// What Cyclone refused of a peer's QoS, when it did.
transport_common::DdsRefusal refusal_of(bool refused, std::uint32_t policy_id) noexcept
{
  const auto policy = static_cast<dds_qos_policy_id_t>(policy_id);
  return {refused, policy == DDS_RELIABILITY_QOS_POLICY_ID, policy_name(policy)};
}

transport_common::DdsRefusal writer_refusal(dds_entity_t writer) noexcept
{
  dds_offered_incompatible_qos_status_t status{};
  const bool read = dds_get_offered_incompatible_qos_status(writer, &status) == DDS_RETCODE_OK;
  return refusal_of(read && status.total_count > 0, status.last_policy_id);
}

transport_common::DdsRefusal reader_refusal(dds_entity_t reader) noexcept
{
  dds_requested_incompatible_qos_status_t status{};
  const bool read = dds_get_requested_incompatible_qos_status(reader, &status) == DDS_RETCODE_OK;
  return refusal_of(read && status.total_count > 0, status.last_policy_id);
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
std::size_t max_message_of(const transport_common::DdsEndpointSettings& settings) noexcept
{
  return settings.header_bytes + (settings.payload_type == PayloadType::nested
                                      ? nested_max_payload
                                      : DdsEndpoint::max_payload_size);
}

std::size_t payload_of(const transport_common::DdsEndpointSettings& settings) noexcept
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
    : DdsReceiveLoops(settings, cyclone_words), m_max_message_size(max_message_of(settings)),
      m_codec(choose_sample_type(settings.payload_type, settings.keys, payload_of(settings)),
              settings.header_bytes, m_max_message_size),
      m_keys(std::max<std::uint32_t>(settings.keys, 1))
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
  m_notes.push_back(qos_note(keep_all));
  m_notes.push_back("sample type " + describe(m_codec.type()) +
                    (m_keys > 1 ? ", keyed: data round-robin over " + std::to_string(m_keys) +
                                      " instances (--dds-keys), control messages in instance 0"
                                : std::string()));
  m_notes.push_back(notify_note(notify_meaning(m_notify)));
  m_notes.push_back(topics_note());
}

DdsEndpoint::~DdsEndpoint()
{
  linger_if_incompatible();
  // Deleting the participant deletes its topics, writer, reader, condition and waitset.
  dds_delete(m_participant);
}

bool DdsEndpoint::check_statuses() noexcept
{
  const std::uint32_t writer_matches = matched_readers(m_writer);
  const std::uint32_t reader_matches = matched_writers(m_reader);
  return record_statuses(writer_matches, reader_matches, writer_refusal(m_writer),
                         reader_refusal(m_reader));
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
  EndpointFacts facts = common_facts();
  facts.max_message_size = m_max_message_size;
  facts.size_hint = m_codec.type().payload == PayloadType::nested
                        ? "a nested sample takes about 1.5 B a payload byte, and netprof's DDS "
                          "samples at most 1 MiB serialized"
                        : "netprof's DDS samples carry at most 1 MiB of payload";
  return facts;
}

} // namespace netprof::dds_parts
