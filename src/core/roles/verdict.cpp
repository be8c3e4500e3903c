#include "core/roles/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace netprof {

namespace {

// The one status rule: an interrupted run neither passes nor fails (its report is partial);
// otherwise any problem fails it with the status its kind of failure calls for.
void conclude(Verdict& verdict, bool interrupted, ExitStatus failure)
{
  verdict.interrupted = interrupted;
  verdict.success = verdict.problems.empty() && !interrupted;
  if (interrupted)
    verdict.status = ExitStatus::interrupted;
  else if (!verdict.problems.empty())
    verdict.status = failure;
}

// Loss beyond --max-loss fails the test; any other loss is a warning. `who` names the
// subscriber in a publisher's report and is empty in the subscriber's own.
void judge_loss(const std::string& who, const SubscriberResult& figures, std::uint64_t sent,
                const std::optional<double>& max_loss, Verdict& verdict)
{
  if (figures.lost == 0)
    return;
  // A late joiner is charged only with what was sent after it joined.
  const std::uint64_t before = std::min(sent, figures.joined_at_sequence);
  const std::string of_what = before > 0 ? " messages sent after it joined" : " messages";
  sent -= before;
  const std::string subject = who.empty() ? "lost " : who + " lost ";
  if (max_loss && loss_percent(figures) > *max_loss)
    verdict.problems.push_back(subject + format_percent(loss_percent(figures)) +
                               " (more than --max-loss " + format_number(*max_loss) + "%)");
  else
    verdict.warnings.push_back(subject + format_count(figures.lost) + " of " + format_count(sent) +
                               of_what);
}

// What to read and do about a loss that did not fail the run, after "X% lost at ...".
// `pacing` is unknown to a subscriber whose publisher did not describe the run; `outran` says
// who outran whom.
std::string loss_advice(const std::optional<Pacing>& pacing, const std::optional<double>& max_loss,
                        const std::string& outran)
{
  if (max_loss)
    return ", within --max-loss " + format_number(*max_loss) + "%";
  if (!pacing)
    return ": if the publisher outran this subscriber, pace it with --send-hz; --max-loss fails "
           "such a run";
  if (pacing->mode == Mode::ping_pong)
    return "; --max-loss fails such a run";
  if (pacing->send_hz <= 0)
    return ": " + outran + "; pace with --send-hz, or --max-loss to fail";
  return " at --send-hz " + format_number(pacing->send_hz) +
         ": lower the rate or raise -q, or --max-loss to fail";
}

// A SUCCESS that lost three messages in four must say so on its first line, not only under
// Warnings: the worst subscriber's loss, and how many lost any.
std::string publisher_headline(const PublisherFacts& facts, const VerdictCriteria& criteria)
{
  const SubscriberResult* worst = nullptr;
  std::size_t losing = 0;
  for (const SubscriberResult& sub : facts.subscribers) {
    if (!sub.counters_received || sub.lost == 0)
      continue;
    ++losing;
    if (!worst || loss_percent(sub) > loss_percent(*worst))
      worst = &sub;
  }
  if (!worst)
    return {};
  std::string text =
      format_percent(loss_percent(*worst)) + " lost at subscriber " + std::to_string(worst->id);
  if (losing > 1)
    text += " (the worst of " + std::to_string(losing) + " that lost messages)";
  if (worst->injected_drops > 0) {
    text +=
        ", " + format_count(worst->injected_drops) + " of them dropped on purpose (--drop-rate)";
    if (worst->injected_drops >= worst->lost)
      return text;
  }
  return text + loss_advice(criteria.pacing, criteria.max_loss_percent, "the sender outran it");
}

// Says when a subscriber without final counters was last heard, which tells a process that
// died mid-run (killed, crashed) from counters lost at the very end.
std::string vanished_problem(const std::string& name, double last_heard_seconds,
                             double measured_seconds)
{
  std::string text = name + " vanished: it sent no final counters, and ";
  if (last_heard_seconds < 0)
    return text + "was not heard during the measured phase (killed, crashed, or cut off?)";
  return text + "was last heard " + format_number(last_heard_seconds) + " s into the " +
         format_number(measured_seconds) +
         " s measured phase (killed, crashed, or its counters were lost?)";
}

// More connections than subscribers: a stranger is connected, and one that does not read holds
// back a transport that waits for every connection.
bool strangers_connected(const PublisherFacts& facts)
{
  return facts.peak_connections > facts.subscribers.size();
}

// Why sending stopped, naming a stranger when the transport's count shows one.
std::string stall_problem(const PublisherFacts& facts, const VerdictCriteria& criteria)
{
  std::string text = "the transport failed while sending: it pushed back for --wait " +
                     format_number(criteria.wait_seconds) + " s without a break";
  if (!strangers_connected(facts))
    return text + " (a subscriber that stopped reading holds it back)";
  return text + ", held back by a stranger: " + std::to_string(facts.peak_connections) +
         " connections subscribed, but the run has " + std::to_string(facts.subscribers.size()) +
         " subscriber(s); one that is not a subscriber of this run and does not read stops "
         "every message, END included";
}

// --count-received: a member short of its count when -t ended the phase fails the run. In
// ping-pong the count is of round trips; in a stream, of the distinct measured messages it
// received.
void judge_count_received(const std::string& name, const SubscriberResult& sub,
                          const PublisherFacts& facts, const VerdictCriteria& criteria,
                          Verdict& verdict)
{
  const std::optional<std::uint64_t> wanted = criteria.phases.count_received;
  const bool ping_pong = criteria.pacing.mode == Mode::ping_pong;
  const std::uint64_t reached = ping_pong ? sub.echoes : sub.counters.unique;
  if (!wanted || facts.interrupted || reached >= *wanted)
    return;
  verdict.problems.push_back(
      name + (ping_pong ? " completed " : " received ") + format_count(reached) + " of the " +
      format_count(*wanted) + (ping_pong ? " round trips" : " measured messages") +
      " --count-received asked for before -t " + format_number(criteria.phases.test_seconds) +
      " s ended the measured phase");
}

void judge_member(const SubscriberResult& sub, const PublisherFacts& facts,
                  const VerdictCriteria& criteria, Verdict& verdict)
{
  const std::string name = "subscriber " + std::to_string(sub.id);
  if (sub.id_clash)
    verdict.problems.push_back("two live processes use -i " + std::to_string(sub.id) +
                               " (each took the id over from the other): give every "
                               "subscriber its own id, and each run a name of its own; the "
                               "figures are of whichever spoke last");
  else if (sub.outcome == SubscriberOutcome::left_early)
    // An interrupt (Ctrl-C) reaches every process of the terminal: a subscriber that left
    // while the publisher was interrupted was interrupted too, and did not fail.
    verdict.problems.push_back(name + (facts.interrupted
                                           ? " was interrupted before the end of the test"
                                           : " left before the end of the test"));
  else if (sub.outcome == SubscriberOutcome::vanished && !sub.refused_counters.empty())
    verdict.problems.push_back(name + " sent final counters that cannot be true of this run (" +
                               sub.refused_counters + "), so they were refused");
  else if (sub.outcome == SubscriberOutcome::vanished && facts.send_stalled &&
           strangers_connected(facts))
    verdict.problems.push_back(name + " sent no final counters: the stranger connection kept "
                                      "the END from it (not this subscriber's fault)");
  else if (sub.outcome == SubscriberOutcome::vanished)
    verdict.problems.push_back(
        vanished_problem(name, sub.last_heard_seconds, facts.measured_seconds));
  else if (sub.outcome == SubscriberOutcome::restarted)
    verdict.problems.push_back(name + " restarted " + format_number(sub.restarted_seconds) +
                               " s into the measured phase (a new process took over its id): "
                               "its figures are the new process's only, a part of the run");
  else if (sub.counters.received == 0)
    verdict.problems.push_back(name + " received no measured data");
  else {
    // Dealt in turn, each subscriber was owed only its share.
    const std::uint64_t owed =
        criteria.fanout == Fanout::round_robin ? sub.messages_owed : facts.messages_sent;
    judge_loss(name, sub, owed, criteria.max_loss_percent, verdict);
    judge_count_received(name, sub, facts, criteria, verdict);
  }
  if (sub.restarts > 0 && sub.restarted_seconds < 0)
    verdict.warnings.push_back(name + " restarted before the measured phase (a new process "
                                      "took over its id); its figures cover the whole phase");
  if (sub.joined_late)
    verdict.warnings.push_back(name + " joined after the measured phase began, at message " +
                               format_count(sub.joined_at_sequence) + ": the " +
                               format_count(sub.joined_at_sequence) +
                               " sent before are not counted as lost");
}

// --fanout round-robin dealt by the transport: only the run's total loss is known (each
// subscriber was charged with what it got), judged as one subscriber's would be.
void judge_dealt_loss(const PublisherFacts& facts, const VerdictCriteria& criteria,
                      Verdict& verdict)
{
  if (!facts.dealt_by_transport)
    return;
  const DealtLoss loss = dealt_loss(facts.messages_sent, facts.subscribers);
  if (loss.lost == 0)
    return;
  const std::string text = "the subscribers received " + format_count(loss.received) + " of the " +
                           format_count(loss.sent) +
                           " messages the transport dealt out: " + format_count(loss.lost) +
                           " lost (" + format_percent(loss.percent()) + ")";
  if (criteria.max_loss_percent && loss.percent() > *criteria.max_loss_percent)
    verdict.problems.push_back(text + ", more than --max-loss " +
                               format_number(*criteria.max_loss_percent) + "%");
  else
    verdict.warnings.push_back(text);
}

// "subscribers 1, 7 and 9".
std::string listed_ids(const std::vector<std::uint32_t>& ids)
{
  std::string text = ids.size() == 1 ? "subscriber " : "subscribers ";
  for (std::size_t i = 0; i < ids.size(); ++i)
    text += (i == 0 ? "" : (i + 1 == ids.size() ? " and " : ", ")) + std::to_string(ids[i]);
  return text;
}

// Without --key-file, whoever reaches the publisher and answers its challenge takes part
// (docs/hostile-input.md, "What a run without --key-file trusts"): on a connection, a stranger
// may join first and take a seat. So when more took part than --subscribers expected, and at
// least that many finished cleanly, the trouble of the others is named but never fails the
// run. With a key every member is one of the run's, and each is judged.
void judge_members(const PublisherFacts& facts, const VerdictCriteria& criteria, Verdict& verdict)
{
  std::vector<Verdict> each(facts.subscribers.size());
  std::size_t clean = 0;
  for (std::size_t i = 0; i < facts.subscribers.size(); ++i) {
    judge_member(facts.subscribers[i], facts, criteria, each[i]);
    clean += each[i].problems.empty() ? 1 : 0;
  }
  const bool beyond_expected = facts.subscribers.size() > criteria.subscribers;
  const bool forgiven = beyond_expected && !criteria.keyed && clean >= criteria.subscribers;
  std::vector<std::uint32_t> troubled;
  for (std::size_t i = 0; i < each.size(); ++i) {
    auto& into = forgiven ? verdict.warnings : verdict.problems;
    into.insert(into.end(), each[i].problems.begin(), each[i].problems.end());
    verdict.warnings.insert(verdict.warnings.end(), each[i].warnings.begin(),
                            each[i].warnings.end());
    if (!each[i].problems.empty())
      troubled.push_back(facts.subscribers[i].id);
  }
  if (!beyond_expected || criteria.keyed)
    return;
  std::string text = std::to_string(facts.subscribers.size()) + " took part where --subscribers " +
                     std::to_string(criteria.subscribers) + " expected";
  if (forgiven && !troubled.empty())
    text += ": " + listed_ids(troubled) + " did not finish cleanly, which does not fail the run";
  verdict.warnings.push_back(text + "; without --key-file anyone who reaches the publisher may "
                                    "take part (give --key-file to admit only the run's own)");
}

// How the subscriber's run ended, when that alone is a problem; the failure status it calls for.
ExitStatus judge_ending(const SubscriberFacts& facts, const VerdictCriteria& criteria,
                        Verdict& verdict)
{
  switch (facts.ended_by) {
  case RunEnding::no_publisher:
    verdict.problems.push_back(
        "no publisher was heard within --wait " + format_number(criteria.wait_seconds) +
        " s (is it running, and are the addresses right?)" + key_hint(facts.unauthenticated));
    return ExitStatus::runtime;
  case RunEnding::publisher_silent:
    verdict.problems.push_back(
        facts.data_started
            ? "the publisher went silent before the end of the test (killed?): nothing for "
              "--idle-timeout " +
                  format_number(criteria.idle_timeout_seconds) + " s, so these figures are partial"
            : "the publisher acknowledged us but never started sending");
    return ExitStatus::failed;
  case RunEnding::transport_failed:
    verdict.problems.push_back("the transport failed while receiving");
    return ExitStatus::runtime;
  default:
    return ExitStatus::failed;
  }
}

} // namespace

Verdict publisher_verdict(const PublisherFacts& facts, const VerdictCriteria& criteria)
{
  Verdict verdict;
  if (facts.send_stalled)
    verdict.problems.push_back(stall_problem(facts, criteria));
  else if (facts.transport_failed)
    verdict.problems.push_back("the transport failed while sending or receiving");
  if (!facts.subscribers_arrived) {
    verdict.problems.push_back("waited " + format_number(criteria.wait_seconds) + " s for " +
                               std::to_string(criteria.subscribers) + " subscriber(s); " +
                               std::to_string(facts.subscribers.size()) + " announced themselves" +
                               key_hint(facts.unauthenticated));
  } else {
    if (facts.subscribers.empty())
      verdict.problems.push_back("no subscriber took part");
    judge_members(facts, criteria, verdict);
    judge_dealt_loss(facts, criteria, verdict);
    if (facts.probes_sent > 0 && facts.echoes == 0 && !facts.subscribers.empty())
      verdict.problems.push_back("no probe was echoed, so there is no latency figure");
    judge_probe_timeouts(facts, criteria, verdict);
    if (facts.echoes_late > 0)
      verdict.warnings.push_back(format_count(facts.echoes_late) +
                                 " echoes came back after --probe-timeout");
  }
  judge_foreign_runs(facts.foreign, verdict);
  judge_send_rate(facts, criteria, verdict);
  judge_probe_rate(facts, criteria, verdict);
  if (facts.pushed_back + facts.warmup_pushed_back > 0)
    verdict.warnings.push_back(pushed_back_warning(facts));
  const bool runtime_failure = facts.transport_failed || !facts.subscribers_arrived;
  conclude(verdict, facts.interrupted, runtime_failure ? ExitStatus::runtime : ExitStatus::failed);
  if (verdict.success)
    verdict.headline = publisher_headline(facts, criteria);
  return verdict;
}

Verdict subscriber_verdict(const SubscriberFacts& facts, const VerdictCriteria& criteria)
{
  Verdict verdict;
  const ExitStatus failure = judge_ending(facts, criteria, verdict);
  if (!facts.interrupted && facts.ended_by != RunEnding::no_publisher &&
      facts.self.counters.received == 0)
    verdict.problems.push_back("no measured data was received");
  if (facts.id_clash)
    verdict.problems.push_back("another live process uses -i " + std::to_string(facts.self.id) +
                               " (the publisher answered it too): give every subscriber its own "
                               "id; these figures may be partial");
  judge_foreign_runs(facts.foreign, verdict);
  for (const AbandonedRun& abandoned : facts.abandoned_runs)
    verdict.warnings.push_back(
        "the publisher restarted: run " + format_run_id(abandoned.run_id) + " ended after " +
        format_count(abandoned.figures.counters.received) +
        " measured messages without an end of test (partial figures under \"Earlier runs\"); "
        "this report's verdict is for run " +
        format_run_id(facts.run_id));
  if (facts.self.joined_late)
    verdict.warnings.push_back("joined after the measured phase began: the first measured "
                               "message received was number " +
                               format_count(facts.first_sequence) +
                               ", so the loss counts only the messages sent from it on");
  if (facts.conflicting_ends > 0 && !facts.final_acknowledged)
    verdict.problems.push_back(
        "ENDs of this run disagreed on the number of messages sent (" +
        format_count(facts.publisher_sent) + ", then " + format_count(facts.conflicting_count) +
        "), and the publisher did not confirm either: one was forged, so the loss cannot be "
        "known");
  if (facts.end_received)
    judge_loss("", facts.self, facts.publisher_sent, criteria.max_loss_percent, verdict);
  conclude(verdict, facts.interrupted, failure);
  if (verdict.success && facts.end_received && facts.self.lost > 0)
    verdict.headline = format_percent(loss_percent(facts.self)) + " lost" +
                       loss_advice(facts.pacing, criteria.max_loss_percent,
                                   "the publisher outran this subscriber");
  return verdict;
}

void add_transport_diagnoses(RunReport& report)
{
  if (report.success || report.interrupted)
    return;
  for (const std::string& diagnosis : report.endpoint.diagnoses)
    report.problems.push_back(report.endpoint.transport + ": " + diagnosis);
}

void apply_verdict(Verdict verdict, RoleResult& result)
{
  result.report.problems = std::move(verdict.problems);
  result.report.warnings = std::move(verdict.warnings);
  result.report.headline = std::move(verdict.headline);
  result.report.success = verdict.success;
  result.report.interrupted = verdict.interrupted;
  result.status = verdict.status;
}

} // namespace netprof
