#pragma once

// Turns what a run came to (facts, one plain struct per role) into the problems and warnings
// both roles print, and the exit status. The one place that words a verdict.

#include "core/protocol/foreign_runs.hpp"
#include "core/roles/role_result.hpp"
#include "core/roles/role_settings.hpp"
#include "core/roles/run_progress.hpp"

#include <netprof/config.hpp>
#include <netprof/errors.hpp>
#include <netprof/report.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netprof {

struct PublisherFacts {
  bool interrupted = false;
  bool transport_failed = false;
  bool subscribers_arrived = false; // --subscribers said hello within --wait
  std::uint64_t messages_sent = 0;  // measured data messages
  std::uint64_t probes_sent = 0;
  std::uint64_t echoes = 0;
  std::uint64_t echoes_late = 0;
  // Send attempts the transport pushed back: in the measured phase (as the report's "Send
  // attempts" line counts them) and in the warm-up, apart.
  std::uint64_t pushed_back = 0;
  std::uint64_t warmup_pushed_back = 0;
  bool send_stalled = false;        // it pushed back for --wait on end, so sending stopped
  std::size_t peak_connections = 0; // EndpointFacts::peak_connections; 0 unknown
  double measured_seconds = 0.0;
  std::uint64_t unauthenticated = 0;         // control messages refused for their MAC (--key-file)
  ForeignRuns foreign;                       // messages of another run, none of them taken
  std::vector<SubscriberResult> subscribers; // every member, as member_result() made it
  // --fanout round-robin dealt by the transport: loss is judged in total (DealtLoss).
  bool dealt_by_transport = false;
};

// The run's progress as it stood when the subscriber ended, and how it ended.
struct SubscriberFacts : RunProgress {
  bool interrupted = false;
  RunEnding ended_by = RunEnding::end;
  bool id_clash = false;             // the publisher answered another live process using our id
  std::uint64_t unauthenticated = 0; // control messages refused for their MAC (--key-file)
  ForeignRuns foreign;               // messages of another run, none of them taken
  SubscriberResult self;
  std::vector<AbandonedRun> abandoned_runs;
  // The publisher's, when the run description told it: what a loss is most likely due to.
  std::optional<Pacing> pacing;
};

struct Verdict {
  std::vector<std::string> problems; // why the test failed, one line each
  std::vector<std::string> warnings; // did not fail it, but the user should know
  // Beside a SUCCESS on the verdict line, what the reader must see first (the worst loss, why,
  // and what to do); empty when nothing is.
  std::string headline;
  bool success = false;
  bool interrupted = false; // the report is partial
  ExitStatus status = ExitStatus::passed;
};

// `criteria` gives what the user asked of the run (--max-loss, --wait, --subscribers, ...).
Verdict publisher_verdict(const PublisherFacts& facts, const VerdictCriteria& criteria);
Verdict subscriber_verdict(const SubscriberFacts& facts, const VerdictCriteria& criteria);

// When the scheduler, not the transport, may have made the figures: the role's threads were
// preempted often, waited long for a CPU, the hypervisor stole time, or (spinning) more threads
// wanted to run than the host has CPUs. One line with the figures that show it; none when
// nothing does. `steal_percent` is RunReport::steal_percent.
std::optional<std::string> overload_warning(const SchedulerLoad& load,
                                            std::optional<double> steal_percent,
                                            WaitStrategy strategy);

// When a sleeping receiver's wake-ups may be a halted vCPU's: the strategy sleeps (block,
// poll-then-block) on a KVM guest whose idle vCPUs halt at once (haltpoll, guest_halt_poll_ns
// 0). One line with the setting and how to change it; none otherwise.
std::optional<std::string> idle_halt_warning(const HostFacts& host, WaitStrategy strategy);

// The sending side of a publisher's verdict (sending_verdict.cpp). Pushed-back sends, counted as
// the report's "Send attempts" line counts them, the warm-up's apart.
std::string pushed_back_warning(const PublisherFacts& facts);
// Sent more than 1% below --send-hz over the measured phase: a warning with both rates.
void judge_send_rate(const PublisherFacts& facts, const VerdictCriteria& criteria,
                     Verdict& verdict);
// In a stream, probes more than 10% below --probe-hz: a warning with the rate reached and why.
void judge_probe_rate(const PublisherFacts& facts, const VerdictCriteria& criteria,
                      Verdict& verdict);
// In ping-pong, most probes timing out: a problem, since the few echoes are no latency figure.
void judge_probe_timeouts(const PublisherFacts& facts, const VerdictCriteria& criteria,
                          Verdict& verdict);

// What others did to the run (stranger_verdict.cpp). Another run's messages are never taken as
// this run's: a stream of its data or echoes is a problem (a second run shares the medium), a few
// strays a warning.
void judge_foreign_runs(const ForeignRuns& foreign, Verdict& verdict);
// Why nobody was heard, when control messages were refused for their MAC ("; N control
// messages were refused ..."), to append to that problem; empty when none was.
std::string key_hint(std::uint64_t unauthenticated);

// Adds the transport's diagnoses (EndpointFacts::diagnoses) to the problems of a run that
// failed, each after the transport's name; a run that passed or was interrupted needs none.
void add_transport_diagnoses(RunReport& report);

// Writes the verdict into the role's report (problems, warnings, success, interrupted) and
// status.
void apply_verdict(Verdict verdict, RoleResult& result);

} // namespace netprof
