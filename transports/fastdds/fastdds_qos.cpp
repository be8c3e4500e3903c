#include "fastdds_qos.hpp"

#include <algorithm>

namespace netprof::fastdds_parts {

namespace {

namespace dds = eprosima::fastdds::dds;

// A writer that cannot take a sample (keep-all, or reliable with too much unacknowledged) waits
// this long in write(), then the send is pushed back: short, since send() must not block (the
// dds transport's value).
const eprosima::fastrtps::Duration_t max_blocking_time{0, 1'000'000};
// How often a reliable writer asks its readers what they miss. Fast DDS's default, 3 s, is also
// how long a keep-all stream stalls each time a lagging reader's full history turned samples
// away (they are sent again only after the next heartbeat); Cyclone's default is 100 ms.
const eprosima::fastrtps::Duration_t heartbeat_period{0, 100'000'000};
// Samples a history allocates up front: all it may hold, up to keep-all's largest bound. Fast
// DDS grows a writer's per-reader list of changes one entry at a time past what was allocated,
// copying it each time, which made a stream whose reader lags by hundreds of samples spend most
// of its time there (a keep-all stream at a seventh of the rate); a change without its payload
// is small (the payloads are allocated as samples come), so a keep-all history's 1,024 cost
// little.
constexpr std::int32_t max_allocated = 65536;

dds::ReliabilityQosPolicy reliability_of(const QosChoice& qos)
{
  dds::ReliabilityQosPolicy reliability;
  reliability.kind = qos.reliability == QosChoice::Reliability::reliable
                         ? dds::RELIABLE_RELIABILITY_QOS
                         : dds::BEST_EFFORT_RELIABILITY_QOS;
  reliability.max_blocking_time = max_blocking_time;
  return reliability;
}

// History and the resource limits it needs: Fast DDS refuses a keep-last depth over
// max_samples_per_instance (5,000 by default), so the limits follow the depth.
template <typename EntityQos>
void set_history(EntityQos& entity, const QosChoice& qos, std::int32_t keep_all_limit)
{
  const bool keep_all = qos.history == QosChoice::History::keep_all;
  entity.history().kind = keep_all ? dds::KEEP_ALL_HISTORY_QOS : dds::KEEP_LAST_HISTORY_QOS;
  entity.history().depth = keep_all ? 1 : qos.depth;
  const std::int32_t samples = keep_all ? keep_all_limit : qos.depth;
  entity.resource_limits().max_instances = 1; // a keyless topic
  entity.resource_limits().max_samples = samples;
  entity.resource_limits().max_samples_per_instance = samples;
  entity.resource_limits().allocated_samples = std::min(samples, max_allocated);
}

// Where each entity keeps its data representation (a writer offers one, a reader accepts a list).
dds::DataRepresentationQosPolicy& representation_of(dds::DataWriterQos& writer)
{
  return writer.representation();
}

dds::DataRepresentationQosPolicy& representation_of(dds::DataReaderQos& reader)
{
  return reader.type_consistency().representation;
}

// What every netprof reader and writer shares: volatile, as ddsperf's data; histories allocated
// as samples come, since netprof's type is unbounded (up to 1 MiB) and preallocation would
// reserve its largest size per sample; plain CDR (XCDR1), what Cyclone writes for the type.
template <typename EntityQos>
void set_common(EntityQos& entity, const QosChoice& qos, std::int32_t keep_all_limit)
{
  entity.reliability() = reliability_of(qos);
  entity.durability().kind = dds::VOLATILE_DURABILITY_QOS;
  set_history(entity, qos, keep_all_limit);
  entity.endpoint().history_memory_policy = eprosima::fastrtps::rtps::DYNAMIC_REUSABLE_MEMORY_MODE;
  representation_of(entity).m_value.assign(1, dds::XCDR_DATA_REPRESENTATION);
}

} // namespace

dds::DataWriterQos writer_qos(const QosChoice& qos, std::int32_t keep_all_limit)
{
  dds::DataWriterQos writer = dds::DATAWRITER_QOS_DEFAULT;
  set_common(writer, qos, keep_all_limit);
  writer.reliable_writer_qos().times.heartbeatPeriod = heartbeat_period;
  return writer;
}

dds::DataReaderQos reader_qos(const QosChoice& qos, std::int32_t keep_all_limit)
{
  dds::DataReaderQos reader = dds::DATAREADER_QOS_DEFAULT;
  set_common(reader, qos, keep_all_limit);
  return reader;
}

const char* policy_name(dds::QosPolicyId_t policy) noexcept
{
  switch (policy) {
  case dds::RELIABILITY_QOS_POLICY_ID:
    return "reliability";
  case dds::DURABILITY_QOS_POLICY_ID:
    return "durability";
  case dds::DEADLINE_QOS_POLICY_ID:
    return "deadline";
  case dds::LATENCYBUDGET_QOS_POLICY_ID:
    return "latency budget";
  case dds::OWNERSHIP_QOS_POLICY_ID:
    return "ownership";
  case dds::LIVELINESS_QOS_POLICY_ID:
    return "liveliness";
  case dds::DESTINATIONORDER_QOS_POLICY_ID:
    return "destination order";
  case dds::PRESENTATION_QOS_POLICY_ID:
    return "presentation";
  case dds::DATAREPRESENTATION_QOS_POLICY_ID:
    return "data representation";
  default:
    return "a QoS policy";
  }
}

} // namespace netprof::fastdds_parts
