// The verdict on the sending side of a publisher's run (verdict.hpp): how fast it sent and
// probed against what was asked, what the transport pushed back, and probes left unanswered.

#include "core/roles/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace netprof {

namespace {

// Why a paced publisher sent fewer messages than --send-hz asked for.
const char* shortfall_cause(const PublisherFacts& facts, const VerdictCriteria& criteria)
{
  if (criteria.pacing.mode == Mode::ping_pong)
    return "in ping-pong each message waits for its echoes first";
  if (facts.pushed_back > 0)
    return "the transport held the publisher back";
  return "the publisher could not keep up";
}

} // namespace

// Counted as the report's "Send attempts" line counts them (the measured phase), the warm-up's
// apart, so the two figures never disagree unlabelled.
std::string pushed_back_warning(const PublisherFacts& facts)
{
  std::string text = "the transport pushed back " + format_count(facts.pushed_back) +
                     " send attempts in the measured phase";
  if (facts.warmup_pushed_back > 0)
    text += " (and " + format_count(facts.warmup_pushed_back) +
            " in the warm-up, not counted "
            "under Send attempts)";
  return text;
}

// A publisher that could not send at --send-hz says so with both figures, since every rate and
// latency in the report is then at the rate it reached. Short means more than 1% below the
// rate asked for, over the measured phase (warm-up excluded), and more than one message: a
// short run may end between two due sends.
void judge_send_rate(const PublisherFacts& facts, const VerdictCriteria& criteria, Verdict& verdict)
{
  if (criteria.pacing.send_hz <= 0 || facts.measured_seconds <= 0)
    return;
  const double sent = static_cast<double>(facts.messages_sent);
  const double due = criteria.pacing.send_hz * facts.measured_seconds;
  if (100.0 * sent >= 99.0 * due || due - sent <= 1.0)
    return;
  const double planned_seconds =
      criteria.phases.count ? static_cast<double>(*criteria.phases.count) / criteria.pacing.send_hz
                            : criteria.phases.test_seconds;
  const std::uint64_t planned =
      criteria.phases.count
          ? *criteria.phases.count
          : static_cast<std::uint64_t>(std::llround(criteria.pacing.send_hz * planned_seconds));
  verdict.warnings.push_back(
      "sent " + format_count(facts.messages_sent) + " messages at " +
      format_count(static_cast<std::uint64_t>(std::llround(sent / facts.measured_seconds))) +
      " msg/s; --send-hz asked for " + format_number(criteria.pacing.send_hz) + " (" +
      format_count(planned) + " over " + format_number(planned_seconds) +
      " s): " + shortfall_cause(facts, criteria));
}

// In a stream, probes that went out more than 10% below --probe-hz make every latency figure
// rarer than the settings say; the warning gives the rate reached and why.
void judge_probe_rate(const PublisherFacts& facts, const VerdictCriteria& criteria,
                      Verdict& verdict)
{
  if (criteria.pacing.mode != Mode::stream || facts.measured_seconds <= 0 ||
      criteria.pacing.probe_hz <= 0)
    return;
  const double probe_rate = static_cast<double>(facts.probes_sent) / facts.measured_seconds;
  const double stated = criteria.pacing.probe_hz;
  if (probe_rate >= 0.9 * stated || stated * facts.measured_seconds - probe_rate < 2.0)
    return;
  const double message_rate = static_cast<double>(facts.messages_sent) / facts.measured_seconds;
  verdict.warnings.push_back(
      "probes went out at " + format_number(probe_rate) + " Hz over the measured phase (" +
      format_count(facts.probes_sent) + " probes), --probe-hz asked for " + format_number(stated) +
      ": " +
      (message_rate < 0.9 * stated
           ? "only " + format_number(message_rate) +
                 " msg/s were sent, and a message carries at most one probe"
           : std::string("the publisher was held up longer than a probe period at times (by "
                         "the transport or the scheduler), and missed probes are not sent in a "
                         "burst to catch up")));
}

// In ping-pong every message is a probe that waits --probe-timeout for its echoes. When most
// wait in vain, the run is a flood of unanswered probes, not a measurement of round trips: the
// few echoes that made it in time are no latency figure to pass on.
void judge_probe_timeouts(const PublisherFacts& facts, const VerdictCriteria& criteria,
                          Verdict& verdict)
{
  if (criteria.pacing.mode != Mode::ping_pong || facts.echoes == 0 || facts.subscribers.empty())
    return;
  // Each subscriber owed echoes for the probes sent to it: all since it joined, or under
  // --fanout round-robin those dealt to it.
  // --fanout round-robin dealt by the transport: each probe was owed one echo, by whoever got it.
  std::uint64_t expected = 0;
  if (facts.dealt_by_transport)
    expected = facts.probes_sent;
  else
    for (const SubscriberResult& sub : facts.subscribers)
      expected += sub.probes_sent;
  const std::uint64_t on_time = facts.echoes - std::min(facts.echoes_late, facts.echoes);
  if (on_time * 2 >= expected)
    return;
  verdict.problems.push_back(format_count(expected - on_time) + " of " + format_count(expected) +
                             " probe echoes did not come back within --probe-timeout " +
                             format_number(criteria.probe_timeout_seconds) +
                             " s: most probes timed out, so the latency figures describe a "
                             "minority; raise --probe-timeout (or find the loss)");
}

} // namespace netprof
