#pragma once

// The reliability and history every netprof DDS reader and writer uses (QosChoice, shared with
// the fastdds transport in common/dds_qos_choice.hpp), turned into Cyclone's QoS.

#include "common/dds_qos_choice.hpp"

#include <dds/dds.h>

#include <cstdint>

namespace netprof::dds_parts {

using transport_common::describe;
using transport_common::keep_all_samples;
using transport_common::QosChoice;
using transport_common::reliability_name;

// A new dds_qos_t with that reliability and history (volatile, as ddsperf's data), and for
// keep-all at most `keep_all_limit` in a reader's history so that a slow reader pushes back
// on the writer instead of growing without bound. The caller deletes it.
dds_qos_t* make_qos(const QosChoice& qos, std::int32_t keep_all_limit);

} // namespace netprof::dds_parts
