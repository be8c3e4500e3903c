#include "text_sections.hpp"

#include <netprof/report.hpp>

#include <ostream>
#include <string>

namespace netprof::text_sections {

namespace {

// What a counters block can say of loss.
enum class LossView {
  known,            // the publisher's view, or a subscriber's that saw END
  no_end,           // a subscriber that never saw END cannot know what was sent
  publisher_counts, // --fanout round-robin: only the publisher can tell what is missing
};

// The counters block shared by the publisher's per-subscriber view and a subscriber's own
// report. `datagrams`: the transport sends datagrams (EndpointFacts::sends_datagrams);
// elsewhere the count is one per message and says nothing, unless it differs.
void write_counters(std::ostream& out, const std::string& indent, const SubscriberResult& result,
                    std::uint32_t num_vars, LossView loss, bool datagrams)
{
  const wire::SubscriberCounters& c = result.counters;
  const Throughput& t = result.throughput;
  out << indent << "Messages received: " << format_count(c.received) << "\n";
  out << indent << "Message rate: " << format_rate(t.messages_per_second, "msg") << "\n";
  if (datagrams || c.datagrams != c.received)
    out << indent << "Datagrams: " << format_count(c.datagrams) << " ("
        << format_rate(t.datagrams_per_second, "datagrams") << ")\n";
  out << indent << "Data received: " << format_byte_total(c.payload_bytes) << "\n";
  out << indent << "Data rate: " << format_rate(t.payload_bytes_per_second, "B") << "\n";
  out << indent << "Wire data: " << format_byte_total(c.wire_bytes) << " at "
      << format_rate(t.wire_bytes_per_second, "B") << "\n";
  out << indent << "Measured time: " << format_duration_ns(t.seconds * 1e9)
      << " (subscriber clock, first to last message)\n";
  if (loss == LossView::known) {
    out << indent << "Lost: " << format_count(result.lost) << " ("
        << format_percent(loss_percent(result)) << ")";
    if (result.injected_drops > 0) {
      out << ", " << format_count(result.injected_drops)
          << " of them dropped on purpose (--drop-rate)";
    }
    out << "\n";
  } else if (loss == LossView::no_end) {
    out << indent << "Lost: unknown (no end of test received)\n";
  } else {
    out << indent
        << "Lost: counted by the publisher (--fanout round-robin: this subscriber got a share, "
           "and only the publisher can tell what is missing)\n";
  }
  out << indent << "Gaps: " << format_count(c.gaps) << "\n";
  out << indent << "Duplicates: " << format_count(c.duplicates) << "\n";
  out << indent << "Out of order: " << format_count(c.out_of_order) << "\n";
  if (num_vars > 0) {
    out << indent << "Records decoded: " << format_count(c.records_decoded) << "\n";
  }
  if (result.join_seconds) {
    out << indent << "Join time: " << format_duration_ns(*result.join_seconds * 1e9)
        << " (subscriber clock, its start to the publisher's first acknowledgement)\n";
  }
}

// Every call to the transport is an attempt: sent + pushed back + failed add up to it. A
// pushed-back message is retried, so one message may cost several attempts; the causes are
// listed only when something was refused.
void write_send_accounting(std::ostream& out, const SendAccounting& accounting)
{
  out << "  Send attempts: " << format_count(accounting.attempted) << " ("
      << format_count(accounting.sent) << " sent, " << format_count(accounting.pushed_back)
      << " pushed back, " << format_count(accounting.failed) << " failed)";
  if (accounting.refused() > 0) {
    const char* separator = ": ";
    for (std::size_t i = 0; i < SendAccounting::cause_count; ++i) {
      if (accounting.by_cause[i] == 0)
        continue;
      out << separator << to_string(static_cast<SendCause>(i)) << " "
          << format_count(accounting.by_cause[i]);
      separator = ", ";
    }
  }
  out << "\n";
}

std::string ending_text(const RunReport& report)
{
  switch (report.ended_by) {
  case RunEnding::end:
    return report.end_received ? "the publisher's end of test" : "end";
  case RunEnding::publisher_silent:
    return "the publisher going silent for --idle-timeout " +
           seconds(report.config.idle_timeout_seconds) + " (partial figures)";
  case RunEnding::no_publisher:
    return "no publisher within --wait " + seconds(report.config.wait_seconds);
  case RunEnding::publisher_restarted:
    return "the publisher restarting (new run detected)";
  case RunEnding::interrupted:
    return "an interrupt (partial figures)";
  case RunEnding::transport_failed:
    break;
  }
  return "a transport failure";
}

// "  Subscriber N:" and what became of it, when it did not simply run from start to end.
void write_subscriber_heading(std::ostream& out, const SubscriberResult& sub)
{
  out << "  Subscriber " << sub.id << ":";
  if (sub.joined_late && sub.joined_at_sequence > 0) {
    out << " (joined late, at message " << format_count(sub.joined_at_sequence) << ": the "
        << format_count(sub.joined_at_sequence) << " sent before are not lost)";
  } else if (sub.joined_late) {
    out << " (joined late)";
  }
  switch (sub.outcome) {
  case SubscriberOutcome::left_early:
    out << " (left early: counters up to its departure)";
    break;
  case SubscriberOutcome::vanished:
    out << " (vanished: no final counters)";
    break;
  case SubscriberOutcome::restarted:
    out << " (restarted " << seconds(sub.restarted_seconds)
        << " into the measured phase: figures from the new process only, not the whole run)";
    break;
  case SubscriberOutcome::complete:
    break;
  }
  if (sub.restarts > 0 && sub.outcome != SubscriberOutcome::restarted) {
    out << " (restarted " << sub.restarts << (sub.restarts == 1 ? " time" : " times") << ")";
  }
  out << "\n";
}

} // namespace

void write_publisher_throughput(std::ostream& out, const RunReport& report)
{
  out << "Throughput:\n";
  out << "  Messages sent: " << format_count(report.messages_sent) << "\n";
  write_send_accounting(out, report.send_accounting);
  out << "  Measured time: " << format_duration_ns(report.measured_seconds * 1e9)
      << " (publisher clock)\n";
  if (report.subscribers.empty()) {
    out << "  No subscriber reported.\n";
  }
  for (const SubscriberResult& sub : report.subscribers) {
    write_subscriber_heading(out, sub);
    if (!sub.counters_received && sub.last_heard_seconds >= 0) {
      out << "    Last heard: " << format_duration_ns(sub.last_heard_seconds * 1e9)
          << " into the measured phase\n";
    }
    if (report.config.fanout == Fanout::round_robin) {
      out << (report.dealt_by_transport ? "    Dealt to it (as it received them): "
                                        : "    Dealt to it: ")
          << format_count(sub.messages_owed) << " of " << format_count(report.messages_sent)
          << " sent ("
          << format_percent(report.messages_sent > 0
                                ? 100.0 * static_cast<double>(sub.messages_owed) /
                                      static_cast<double>(report.messages_sent)
                                : 0.0)
          << (report.dealt_by_transport ? ", round-robin by the transport)\n" : ", round-robin)\n");
    }
    if (sub.counters_received) {
      write_counters(out, "    ", sub, report.config.num_vars, LossView::known,
                     report.endpoint.sends_datagrams);
    }
    out << "    Probes echoed: " << format_count(sub.echoes) << " of "
        << format_count(sub.probes_sent) << "\n";
    if (sub.rtt.count > 0) {
      out << "    One-way (RTT/2): p50 " << format_duration_ns(half(sub.rtt.p50_ns)) << ", p99 "
          << format_duration_ns(half(sub.rtt.p99_ns)) << "\n";
    } else {
      out << "    One-way (RTT/2): no probes echoed\n";
    }
    if (sub.cross_clock)
      write_cross_clock(out, *sub.cross_clock);
  }
  if (report.dealt_by_transport) {
    const DealtLoss loss = dealt_loss(report.messages_sent, report.subscribers);
    out << "  All subscribers together: " << format_count(loss.received) << " of "
        << format_count(loss.sent) << " received, " << format_count(loss.lost) << " lost ("
        << format_percent(loss.percent())
        << "; the transport dealt them, so loss is known in total only)\n";
  }
}

void write_subscriber_throughput(std::ostream& out, const RunReport& report)
{
  out << "Throughput:\n";
  if (report.self) {
    const LossView loss = report.config.fanout == Fanout::round_robin ? LossView::publisher_counts
                          : report.end_received                       ? LossView::known
                                                                      : LossView::no_end;
    write_counters(out, "  ", *report.self, report.config.num_vars, loss,
                   report.endpoint.sends_datagrams);
    out << "  Probes echoed: " << format_count(report.self->counters.probes_echoed) << "\n";
  } else {
    out << "  No counters.\n";
  }
  out << "  End of test received: " << (report.end_received ? "yes" : "no") << "\n";
  out << "  Run ended by: " << ending_text(report) << "\n";
}

// A subscriber of several publishers: what it counted of each one's stream.
void write_per_publisher(std::ostream& out, const RunReport& report)
{
  if (report.per_publisher.empty()) {
    return;
  }
  const bool topics = report.config.topics > 1;
  out << (topics ? "Per stream (the figures above are publisher 0's topic 0):\n"
                 : "Per publisher (the figures above are publisher 0's stream):\n");
  for (const PublisherStream& stream : report.per_publisher) {
    out << "  Publisher " << stream.publisher
        << (topics ? ", topic " + std::to_string(stream.topic) : std::string())
        << (stream.address.empty() ? std::string() : ", at " + stream.address) << ":\n";
    const LossView loss = report.config.fanout == Fanout::round_robin ? LossView::publisher_counts
                          : stream.end_received                       ? LossView::known
                                                                      : LossView::no_end;
    write_counters(out, "    ", stream.figures, report.config.num_vars, loss,
                   report.endpoint.sends_datagrams);
    out << "    End of test received: " << (stream.end_received ? "yes" : "no") << "\n";
  }
}

// A publisher of several topics: each topic's figures, in a line or two each.
void write_per_topic(std::ostream& out, const RunReport& report)
{
  if (report.per_topic.empty()) {
    return;
  }
  out << "Per topic (the figures above are topic 0's):\n";
  for (const TopicStream& stream : report.per_topic) {
    out << "  Topic " << stream.topic
        << (stream.address.empty() ? std::string() : ", at " + stream.address) << ": "
        << (stream.success ? "SUCCESS" : "FAIL") << ", sent " << format_count(stream.messages_sent)
        << ", probes " << format_count(stream.probes_sent) << ", echoes "
        << format_count(stream.echoes_received);
    if (stream.rtt.count > 0)
      out << ", RTT p50 " << format_duration_ns(static_cast<double>(stream.rtt.p50_ns)) << " p99 "
          << format_duration_ns(static_cast<double>(stream.rtt.p99_ns));
    out << "\n";
    for (const SubscriberResult& subscriber : stream.subscribers)
      out << "    Subscriber " << subscriber.id << ": received "
          << format_count(subscriber.counters.unique) << ", lost " << format_count(subscriber.lost)
          << "\n";
  }
}

// Runs a subscriber took part in until their publisher was replaced: partial, loss unknown.
void write_abandoned_runs(std::ostream& out, const RunReport& report)
{
  if (report.abandoned_runs.empty()) {
    return;
  }
  out << "Earlier runs (abandoned when the publisher restarted; partial figures):\n";
  for (const AbandonedRun& run : report.abandoned_runs) {
    out << "  Run " << format_run_id(run.run_id) << ": new run detected, no end of test\n";
    write_counters(out, "    ", run.figures, report.config.num_vars, LossView::no_end,
                   report.endpoint.sends_datagrams);
    out << "    Probes echoed: " << format_count(run.figures.counters.probes_echoed) << "\n";
  }
}

} // namespace netprof::text_sections
