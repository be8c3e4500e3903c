#pragma once

// The QoS every netprof Fast DDS reader and writer uses: the same QosChoice as Cyclone's
// (common/dds_qos_choice.hpp), and the same policies set from it (reliability, history,
// volatile durability, a 1 ms max blocking time), so that a Fast DDS process and a Cyclone one
// given the same options match.

#include "common/dds_qos_choice.hpp"

#include <fastdds/dds/core/policy/QosPolicies.hpp>
#include <fastdds/dds/publisher/qos/DataWriterQos.hpp>
#include <fastdds/dds/subscriber/qos/DataReaderQos.hpp>

#include <cstdint>

namespace netprof::fastdds_parts {

using transport_common::describe;
using transport_common::keep_all_samples;
using transport_common::QosChoice;
using transport_common::reliability_name;

// keep-all holds at most `keep_all_limit` samples in a history, so that a slow reader pushes
// back on the writer instead of growing without bound.
eprosima::fastdds::dds::DataWriterQos writer_qos(const QosChoice& qos, std::int32_t keep_all_limit);
eprosima::fastdds::dds::DataReaderQos reader_qos(const QosChoice& qos, std::int32_t keep_all_limit);

// "reliability", "durability", ...: a policy Fast DDS found incompatible, for a diagnosis.
const char* policy_name(eprosima::fastdds::dds::QosPolicyId_t policy) noexcept;

} // namespace netprof::fastdds_parts
