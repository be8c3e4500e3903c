#include "dds_qos.hpp"

#include <netprof/errors.hpp>

#include <charconv>

namespace netprof::dds_parts {

namespace {

// A writer that cannot take a sample (keep-all, or reliable with too much unacknowledged) waits
// this long in dds_write, then the send is pushed back: short, since send() must not block.
constexpr dds_duration_t max_blocking_time = DDS_MSECS(1);

} // namespace

QosChoice::History parse_history(const std::string& text, std::int32_t& depth)
{
  if (text == "keep-all") {
    return QosChoice::History::keep_all;
  }
  const std::string prefix = "keep-last";
  if (text == prefix) {
    depth = QosChoice::default_depth;
    return QosChoice::History::keep_last;
  }
  if (text.rfind(prefix + ":", 0) == 0) {
    const std::string number = text.substr(prefix.size() + 1);
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), parsed);
    if (!number.empty() && error == std::errc{} && end == number.data() + number.size() &&
        parsed >= 1 && parsed <= QosChoice::max_depth) {
      depth = static_cast<std::int32_t>(parsed);
      return QosChoice::History::keep_last;
    }
  }
  throw UsageError("invalid value '" + text +
                   "' for --dds-history: expected keep-last, keep-last:N (N from 1 to " +
                   std::to_string(QosChoice::max_depth) + ") or keep-all");
}

const char* reliability_name(QosChoice::Reliability reliability) noexcept
{
  return reliability == QosChoice::Reliability::reliable ? "reliable" : "best-effort";
}

std::string describe(const QosChoice& qos)
{
  return std::string(reliability_name(qos.reliability)) + ", " +
         (qos.history == QosChoice::History::keep_all ? std::string("keep-all")
                                                      : "keep-last:" + std::to_string(qos.depth));
}

dds_qos_t* make_qos(const QosChoice& qos, std::int32_t keep_all_samples)
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
    dds_qset_resource_limits(made, keep_all_samples, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  } else {
    dds_qset_history(made, DDS_HISTORY_KEEP_LAST, qos.depth);
  }
  return made;
}

} // namespace netprof::dds_parts
