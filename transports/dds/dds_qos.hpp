#pragma once

// The reliability and history every netprof DDS reader and writer uses, in one value, so that
// the generic --reliability / --history options can feed it later as --dds-reliability and
// --dds-history do now.

#include <dds/dds.h>

#include <cstdint>
#include <string>

namespace netprof::dds_parts {

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

// --dds-history: "keep-last", "keep-last:N" (1 to max_depth) or "keep-all"; the QoS with that
// history and the given reliability. Throws UsageError naming the option.
QosChoice::History parse_history(const std::string& text, std::int32_t& depth);

// "reliable, keep-last:16", as the options spell it.
std::string describe(const QosChoice& qos);
const char* reliability_name(QosChoice::Reliability reliability) noexcept;

// A new dds_qos_t with that reliability and history (volatile, as ddsperf's data), and for
// keep-all at most `keep_all_samples` in a reader's history so that a slow reader pushes back
// on the writer instead of growing without bound. The caller deletes it.
dds_qos_t* make_qos(const QosChoice& qos, std::int32_t keep_all_samples);

} // namespace netprof::dds_parts
