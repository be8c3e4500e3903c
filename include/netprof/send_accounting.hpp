#pragma once

#include <netprof/transport.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace netprof {

// What became of the publisher's measured data sends: every call to the transport is one
// attempt, which either sent the message or was pushed back (retried later) or failed, each
// refusal by the cause the transport gave with it (SendOutcome::cause). The core counts; a
// fixed array, so counting never allocates.
struct SendAccounting {
  static constexpr std::size_t cause_count = static_cast<std::size_t>(SendCause::count_);

  std::uint64_t attempted = 0;
  std::uint64_t sent = 0;
  std::uint64_t pushed_back = 0;                     // SendResult::back_pressured
  std::uint64_t failed = 0;                          // SendResult::failed
  std::array<std::uint64_t, cause_count> by_cause{}; // pushed back or failed, by cause

  void count(SendResult result, SendCause cause) noexcept
  {
    ++attempted;
    if (result == SendResult::sent) {
      ++sent;
      return;
    }
    ++(result == SendResult::back_pressured ? pushed_back : failed);
    const auto index = static_cast<std::size_t>(cause);
    ++by_cause[index < cause_count ? index : 0];
  }

  void count(const SendOutcome& outcome) noexcept { count(outcome.result, outcome.cause); }

  std::uint64_t refused() const noexcept { return pushed_back + failed; }
  std::uint64_t of(SendCause cause) const noexcept
  {
    return by_cause[static_cast<std::size_t>(cause)];
  }

  // The counts between `earlier` and this (for one interval of --interval).
  SendAccounting since(const SendAccounting& earlier) const noexcept
  {
    SendAccounting delta;
    delta.attempted = attempted - earlier.attempted;
    delta.sent = sent - earlier.sent;
    delta.pushed_back = pushed_back - earlier.pushed_back;
    delta.failed = failed - earlier.failed;
    for (std::size_t i = 0; i < cause_count; ++i)
      delta.by_cause[i] = by_cause[i] - earlier.by_cause[i];
    return delta;
  }

  friend bool operator==(const SendAccounting&, const SendAccounting&) = default;
};

// The cause's name in the report and JSON: "eagain", "enobufs", "zmq_hwm", "ring_full"...
const char* to_string(SendCause cause) noexcept;

} // namespace netprof
