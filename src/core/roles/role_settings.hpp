#pragma once

// The parts of RunConfig each consumer reads, cut from it in one place (role_settings.cpp):
// a role, its send loop or the verdict sees what it uses and nothing else, and a test builds it
// without the other 40-odd options. The report still gets the whole RunConfig: it shows the
// settings.

#include <netprof/clock.hpp>
#include <netprof/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>

namespace netprof {

// How the publisher paces its data and its probes.
struct Pacing {
  Mode mode = Mode::stream;
  double send_hz = 0.0;             // --send-hz; 0: as fast as possible
  PaceMode pace = PaceMode::hybrid; // --pace: how a paced publisher waits for a due time
  double probe_hz = 0.0;            // --probe-hz: probes per second in a stream
};

// How long the publisher's two data phases last: a time, or a count of messages instead.
struct PhaseLengths {
  double warmup_seconds = 0.0;                 // --warmup-time
  std::optional<std::uint64_t> warmup_count;   // --warmup-count: replaces the time
  double test_seconds = 0.0;                   // -t
  std::optional<std::uint64_t> count;          // --count: replaces the time
  std::optional<std::uint64_t> count_received; // --count-received: ends the phase before -t

  bool warmup_wanted() const noexcept
  {
    return warmup_count ? *warmup_count > 0 : warmup_seconds > 0;
  }
};

// What the publisher's data messages are made of, and what its probes ask back.
struct DataMessage {
  std::size_t payload_size = 0;                 // -s
  std::uint32_t num_vars = 0;                   // --num-vars; 0: one opaque payload
  EchoSize echo = EchoSize::record;             // --echo
  PayloadFill payload_fill = PayloadFill::once; // --payload-fill
};

// What the publisher's send loop reads.
struct SendSettings {
  Pacing pacing;
  Fanout fanout = Fanout::all; // --fanout
  PhaseLengths phases;
  DataMessage data;
  Nanoseconds probe_timeout{}; // --probe-timeout: an echo later than this is lost
  // --wait: how long a send the transport keeps pushing back is retried before the run ends.
  Nanoseconds back_pressure_limit{};
};

// What both roles read.
struct RoleSettings {
  WaitStrategy wait_strategy = WaitStrategy::block;
  std::span<const std::byte> shared_secret; // --key-file's; the RunConfig's, which outlives it
  std::optional<Nanoseconds> interval;      // --interval
  std::FILE* interval_lines = nullptr;      // where the --interval lines go; none under --quiet
  // --wait: how long a role waits for its peers (a subscriber, also for data once acknowledged).
  Nanoseconds wait{};
};

// What a publisher reads of the configuration.
struct PublisherSettings : RoleSettings {
  std::uint32_t subscribers = 0; // --subscribers: how many it waits for
  SendSettings sending;
};

// What a subscriber reads of the configuration.
struct SubscriberSettings : RoleSettings {
  std::uint32_t id = 0;
  std::size_t payload_size = 0; // its own -s: the full echo's first size
  double drop_percent = 0.0;
  std::uint64_t drop_seed = 1;
  PairLayout pair_layout = PairLayout::none;
  Nanoseconds idle_timeout{}; // --idle-timeout: a publisher silent mid-run
};

// What the verdict judges a run against: what the user asked of it.
struct VerdictCriteria {
  std::optional<double> max_loss_percent; // --max-loss
  std::uint32_t subscribers = 0;          // --subscribers
  bool keyed = false; // --key-file: only the key's holders take part, so every member is judged
  double wait_seconds = 0.0; // --wait
  double probe_timeout_seconds = 0.0;
  double idle_timeout_seconds = 0.0;
  Pacing pacing;
  PhaseLengths phases;
  Fanout fanout = Fanout::all; // --fanout
};

// Only the roles' settings point into `config` (its shared secret): it must outlive them.
Pacing pacing(const RunConfig& config);
SendSettings send_settings(const RunConfig& config);
PublisherSettings publisher_settings(const RunConfig& config);
SubscriberSettings subscriber_settings(const RunConfig& config);
VerdictCriteria verdict_criteria(const RunConfig& config);

} // namespace netprof
