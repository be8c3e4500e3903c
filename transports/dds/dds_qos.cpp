#include "dds_qos.hpp"

#include <netprof/errors.hpp>

namespace netprof::dds_parts {

namespace {

// A writer that cannot take a sample (keep-all, or reliable with too much unacknowledged) waits
// this long in dds_write, then the send is pushed back: short, since send() must not block.
constexpr dds_duration_t max_blocking_time = DDS_MSECS(1);

} // namespace

dds_qos_t* make_qos(const QosChoice& qos, std::int32_t keep_all_limit)
{
  dds_qos_t* made = dds_create_qos();
  dds_qset_reliability(made,
                       qos.reliability == QosChoice::Reliability::reliable
                           ? DDS_RELIABILITY_RELIABLE
                           : DDS_RELIABILITY_BEST_EFFORT,
                       max_blocking_time);
  dds_qset_durability(made, DDS_DURABILITY_VOLATILE);
  if (qos.history == QosChoice::History::keep_all) {
    dds_qset_history(made, DDS_HISTORY_KEEP_ALL, 0);
    dds_qset_resource_limits(made, keep_all_limit, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  } else {
    dds_qset_history(made, DDS_HISTORY_KEEP_LAST, qos.depth);
  }
  return made;
}

} // namespace netprof::dds_parts
