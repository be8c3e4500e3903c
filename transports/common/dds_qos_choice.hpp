#pragma once

// The reliability and history of every reader and writer of a DDS run, as both DDS transports
// (dds: Cyclone, fastdds: Fast DDS) take them: their own --VENDOR-reliability and
// --VENDOR-history, with the generic --reliability and --history mapped onto them natively. One
// value and one mapping for both, so that the two vendors mean the same by the same words (a
// cross-vendor run is given the same QoS on each side). No vendor's API here.

#include <netprof/qos.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::transport_common {

struct QosChoice {
  enum class Reliability { reliable, best_effort };
  enum class History { keep_last, keep_all };

  // keep-last without a depth: enough for the core's bursts of back-channel messages and a
  // stream's samples between two takes, small enough that a lagging reader shows loss soon.
  static constexpr std::int32_t default_depth = 16;
  static constexpr std::int32_t max_depth = 1'000'000;

  Reliability reliability = Reliability::reliable;
  History history = History::keep_last;
  std::int32_t depth = default_depth; // keep-last only

  friend bool operator==(const QosChoice&, const QosChoice&) = default;
};

// A history option's value: "keep-last", "keep-last:N" (1 to max_depth) or "keep-all"; sets
// `depth` for keep-last. Throws UsageError naming `option` (e.g. "--dds-history").
QosChoice::History parse_history(const std::string& text, std::int32_t& depth,
                                 const std::string& option);

// "reliable, keep-last:16", as the options spell it.
std::string describe(const QosChoice& qos);
const char* reliability_name(QosChoice::Reliability reliability) noexcept;

// keep-all's bound on a history, in samples: -q bytes' worth, at least 16, at most 65,536;
// 1,024 when -q is not given.
std::int32_t keep_all_samples(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept;

// A DDS transport's own QoS options as given, and the generic request mapped onto them.
struct DdsQosOptions {
  std::string transport; // "dds", "fastdds": its options are --TRANSPORT-reliability, ...
  QosChoice given;       // the transport's options (their defaults when not given)
  bool reliability_given = false;
  std::optional<std::string> history_given; // --TRANSPORT-history as written

  // The transport's options with --reliability and --history applied; a generic option that
  // contradicts the transport's own given beside it is refused (UsageError), as is a depth
  // over max_depth.
  QosChoice choose(const QosRequest& generic) const;
  // What the report states: DDS's QoS, set on every process.
  EffectiveQos effective(const QosRequest& generic, std::size_t queue_length_bytes,
                         std::size_t message_size) const;

private:
  void apply_history(const History& generic, QosChoice& chosen) const;
};

} // namespace netprof::transport_common
