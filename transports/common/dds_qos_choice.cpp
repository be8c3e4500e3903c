#include "dds_qos_choice.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <charconv>

namespace netprof::transport_common {

namespace {

constexpr std::int32_t default_keep_all_samples = 1024;
constexpr std::int32_t min_keep_all_samples = 16;
constexpr std::int32_t max_keep_all_samples = 65536;

} // namespace

QosChoice::History parse_history(const std::string& text, std::int32_t& depth,
                                 const std::string& option)
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
  throw UsageError("invalid value '" + text + "' for " + option +
                   ": expected keep-last, keep-last:N (N from 1 to " +
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

std::int32_t keep_all_samples(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept
{
  if (queue_length_bytes == 0) {
    return default_keep_all_samples;
  }
  const std::size_t size = std::max<std::size_t>(message_bytes, 1);
  const std::size_t samples = queue_length_bytes / size + (queue_length_bytes % size != 0);
  return static_cast<std::int32_t>(
      std::clamp<std::size_t>(samples, static_cast<std::size_t>(min_keep_all_samples),
                              static_cast<std::size_t>(max_keep_all_samples)));
}

void DdsQosOptions::apply_history(const History& generic, QosChoice& chosen) const
{
  QosChoice wanted = chosen;
  wanted.history = generic.kind == HistoryKind::keep_all ? QosChoice::History::keep_all
                                                         : QosChoice::History::keep_last;
  wanted.depth = QosChoice::default_depth;
  if (generic.depth) {
    if (*generic.depth > static_cast<std::uint32_t>(QosChoice::max_depth))
      qos::refuse(qos::history_option(generic), transport,
                  "a DDS history here keeps at most " + std::to_string(QosChoice::max_depth) +
                      " samples");
    wanted.depth = static_cast<std::int32_t>(*generic.depth);
  }
  if (history_given &&
      (wanted.history != chosen.history ||
       (wanted.history == QosChoice::History::keep_last && wanted.depth != chosen.depth)))
    throw UsageError(qos::history_option(generic) + " contradicts --" + transport + "-history " +
                     *history_given + ": give one of them");
  chosen.history = wanted.history;
  chosen.depth = wanted.depth;
}

QosChoice DdsQosOptions::choose(const QosRequest& generic) const
{
  QosChoice chosen = given;
  if (generic.reliability) {
    const auto wanted = *generic.reliability == Reliability::reliable
                            ? QosChoice::Reliability::reliable
                            : QosChoice::Reliability::best_effort;
    if (reliability_given && wanted != chosen.reliability)
      throw UsageError(qos::reliability_option(*generic.reliability) + " contradicts --" +
                       transport + "-reliability " + reliability_name(chosen.reliability) +
                       ": give one of them");
    chosen.reliability = wanted;
  }
  if (generic.history)
    apply_history(*generic.history, chosen);
  return chosen;
}

EffectiveQos DdsQosOptions::effective(const QosRequest& generic, std::size_t queue_length_bytes,
                                      std::size_t message_size) const
{
  const QosChoice chosen = choose(generic);
  const bool keep_last = chosen.history == QosChoice::History::keep_last;
  EffectiveQos effective;
  effective.reliability = chosen.reliability == QosChoice::Reliability::reliable
                              ? Reliability::reliable
                              : Reliability::best_effort;
  effective.history = keep_last ? HistoryKind::keep_last : HistoryKind::keep_all;
  effective.depth = keep_last ? chosen.depth : keep_all_samples(queue_length_bytes, message_size);
  effective.set_by = QosSetBy::every_process;
  effective.meaning = keep_last ? "DDS's own QoS on every reader and writer: a reader keeps "
                                  "the newest samples, and one that lags loses the oldest"
                                : "DDS's own QoS on every reader and writer: a reader keeps "
                                  "every sample, up to the depth, then the writer waits";
  effective.meaning += chosen.reliability == QosChoice::Reliability::reliable
                           ? "; reliable: lost datagrams are sent again, and DDS matches "
                             "only reliable readers and writers"
                           : "; best-effort: a lost datagram stays lost";
  effective.requested = generic;
  return effective;
}

} // namespace netprof::transport_common
