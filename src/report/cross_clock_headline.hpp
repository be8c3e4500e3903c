#pragma once

// Whether the report leads its latency with the one-way times across clocks instead of RTT/2.
// Across a link whose two directions differ (a shaped or asymmetric one) RTT/2 is neither
// direction; the cross-clock estimate (docs/methodology.md#one-way-across-clocks) is, when its
// error bound is small beside the figure it qualifies.

#include <netprof/report.hpp>

namespace netprof {

// The error bound may be at most this share of the forward median for the estimate to lead.
inline constexpr double sound_bound_share = 0.1;

// The one subscriber's cross-clock latency when it is sound enough to lead the report: one
// subscriber, both directions measured, none left out, and its bound at most
// sound_bound_share of the forward median. Null otherwise (RTT/2 leads, as before).
const CrossClockLatency* leading_cross_clock(const RunReport& report) noexcept;

} // namespace netprof
