#pragma once

// The reliability and history every netprof DDS reader and writer uses (QosChoice, shared with
// the fastdds transport in common/dds_qos_choice.hpp), turned into Cyclone's QoS.

#include "common/dds_qos_choice.hpp"

#include <dds/dds.h>

#include <cstdint>
#include <string>

namespace netprof::dds_parts {

using transport_common::describe;
using transport_common::keep_all_samples;
using transport_common::QosChoice;
using transport_common::reliability_name;

// --dds-history: "keep-last", "keep-last:N" (1 to max_depth) or "keep-all". Throws UsageError
// naming the option.
inline QosChoice::History parse_history(const std::string& text, std::int32_t& depth)
{
  return transport_common::parse_history(text, depth, "--dds-history");
}

// A new dds_qos_t with that reliability and history (volatile, as ddsperf's data), and for
// keep-all at most `keep_all_limit` in a reader's history so that a slow reader pushes back
// on the writer instead of growing without bound. The caller deletes it.
dds_qos_t* make_qos(const QosChoice& qos, std::int32_t keep_all_limit);

} // namespace netprof::dds_parts
