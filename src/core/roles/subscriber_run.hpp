#pragma once

#include "core/roles/role_settings.hpp"
#include "core/roles/run_progress.hpp"

#include <netprof/clock.hpp>
#include <netprof/config.hpp>
#include <netprof/histogram.hpp>
#include <netprof/records.hpp>
#include <netprof/report.hpp>
#include <netprof/sequence_tracker.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstdint>
#include <memory>
#include <optional>

namespace netprof {

// What one data message did to the run's figures.
struct DataCounted {
  std::uint32_t refused = 0;   // reasons to count it as rejected (0, 1 or 2)
  bool measured = false;       // counted as a measured message (not warm-up)
  bool first_measured = false; // the run's first measured message
  std::int64_t one_way = 0;    // its one-way latency, when measured
};

// Everything a subscriber knows of one run: replaced when a restarted publisher takes it into
// a new one.
struct SubscriberRun : RunProgress {
  // What END and final_ack of this run carry (wire.hpp, "Address proof"): whoever sees only
  // what subscribers send cannot know it.
  std::uint64_t end_token = 0;
  // The run as its publisher's acknowledgement described it; none from an older publisher.
  bool described = false;
  wire::RunDescription description;
  bool acknowledged = false;
  // From this process's start (before its endpoint opened) to the first acknowledgement: the
  // time to discover the publisher and join, as a user starting a subscriber waits for it.
  std::optional<Nanoseconds> joined_after;
  std::uint64_t highest_sequence = 0; // of the measured messages received
  // An END that data followed: its count, in case a copy of it comes again.
  std::optional<std::uint64_t> withdrawn_end;
  Clock::time_point last_end{};
  Clock::time_point first_measured{};
  Clock::time_point last_measured{};
  SequenceTracker sequences;
  // Each measured message's arrival minus the publisher's send stamp (header sent_ns): the
  // one-way latency MADARA reported, exact only when both share a host's clock.
  Histogram one_way;

  // Records one measured message's one-way latency, and returns it; allocation-free, for the
  // receive path.
  std::int64_t record_one_way(std::int64_t sent_ns, Clock::time_point arrival) noexcept;
  // Sequence numbers from the first measured one to the highest that did not arrive (yet);
  // 0 when dealt in turn (the numbers between are the other subscribers').
  std::uint64_t missing() const noexcept;
  // --fanout round-robin: each message went to one subscriber, so this one's loss is known to
  // the publisher only.
  bool dealt_in_turn() const noexcept { return described && description.round_robin; }
  std::unique_ptr<RecordReader> records;
  // Counted as messages arrive: datagrams, bytes, probes echoed, warm-up and records. The
  // sequence counts, the span and `rejected` are filled in by counters().
  wire::SubscriberCounters tally;
  std::uint64_t injected_drops = 0; // measured messages --drop-rate dropped
  // Measured probes whose echo never went out (the back channel stayed full, or failed): not
  // counted as echoed, so the publisher's missing echoes are told from ones lost in transit.
  std::uint64_t echoes_unsent = 0;

  // Takes the run a publisher's acknowledgement (and its description, `payload`) started.
  void start(const wire::Header& acknowledgement, std::span<const std::byte> payload) noexcept;
  // Counts one data message that arrived at `now`; allocation-free but for the record reader,
  // built once per run at the first message that carries records.
  DataCounted count_data(const wire::Header& header, const Delivery& delivery,
                         Clock::time_point now) noexcept;

  // The counters the subscriber sends back; `rejected` counts over the whole process.
  wire::SubscriberCounters counters(std::uint64_t rejected) const noexcept;
  // Its figures as the report shows them; `sent` is the END's count, unknown without one.
  SubscriberResult figures(std::uint32_t id, std::uint64_t rejected,
                           std::optional<std::uint64_t> sent) const;

private:
  // Whether the records `payload` carries could be read; counts those decoded.
  bool read_records(const wire::Header& header, std::span<const std::byte> payload) noexcept;
};

// When a subscriber stops waiting, and when it looks for a new publisher. Its publisher may be
// waiting for other subscribers before data flows (up to its own --wait); once data flows,
// silence means it is gone.
class SubscriberDeadlines {
public:
  SubscriberDeadlines(const SubscriberSettings& settings, Clock::time_point start) noexcept
      : m_wait(settings.wait), m_idle_timeout(settings.idle_timeout), m_start(start)
  {
  }

  void heard_publisher(Clock::time_point now) noexcept
  {
    m_heard = true;
    m_last_heard = now;
  }
  bool heard_publisher() const noexcept { return m_heard; }

  // Our publisher has been silent long enough that it may have been restarted: hellos with
  // run id 0 ask any publisher to take us. A live publisher of our run just acknowledges again.
  bool seeking(const SubscriberRun& run, Clock::time_point now) const noexcept;
  // How the run ended by `now`, or nothing while it goes on.
  std::optional<RunEnding> ending(const SubscriberRun& run, Clock::time_point now) const noexcept;

private:
  Nanoseconds silence_allowed(const SubscriberRun& run) const noexcept;

  const Nanoseconds m_wait;
  const Nanoseconds m_idle_timeout;
  const Clock::time_point m_start;
  bool m_heard = false;
  Clock::time_point m_last_heard{};
};

} // namespace netprof
