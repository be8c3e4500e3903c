#include <netprof/report.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

// MADARA network_profiler's report, line for line, for the scripts that parse it: its section
// and field names, its units (integer ns, packets/s, B/s, B), plain numbers (no thousands
// separators, no prefixes, no exponent), "Test: SUCCESS" and "Test: FAIL.". Its figures are
// netprof's (the subscriber's clock, first to last message; loss known), not MADARA's errors.
// What netprof adds goes after MADARA's sections, under a heading MADARA never printed.
// docs/reading-the-report.md maps every line to netprof's own report.

namespace netprof {

namespace {

// A rate or a time as a script reads it: digits, a point and at most three decimals.
std::string plain(double value)
{
  if (!std::isfinite(value))
    return "0";
  std::array<char, 400> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.3f", value);
  std::string text = buffer.data();
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.')
    text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string whole(double value)
{
  return std::isfinite(value) ? std::to_string(std::llround(value)) : "0";
}

// MADARA's names for the transports it had (madara::transport::types_to_string).
std::string transport_name(const std::string& name)
{
  if (name == "udp")
    return "UDP";
  if (name == "multicast")
    return "UDP Multicast";
  if (name == "broadcast")
    return "UDP Broadcast";
  if (name == "zmq")
    return "0MQ";
  return name;
}

void write_madara_status(std::ostream& out, const RunReport& report)
{
  if (report.interrupted) {
    out << "Test: INTERRUPTED (partial results)\n";
  } else if (report.success) {
    out << "Test: SUCCESS\n";
  } else {
    // MADARA printed why first ("Subscriber received no data."), then the verdict.
    for (const std::string& problem : report.problems)
      out << problem << "\n";
    out << "Test: FAIL.\n";
  }
}

// The measured phase's length: -t, or with --count the time it took on this process's clock.
double test_seconds(const RunReport& report)
{
  if (!report.config.count)
    return report.config.test_seconds;
  if (report.config.role == Role::publisher)
    return report.measured_seconds;
  return report.self ? report.self->throughput.seconds : 0.0;
}

void write_madara_settings(std::ostream& out, const RunReport& report)
{
  out << "Settings:\n";
  out << "  Transport type: " << transport_name(report.config.transport_name) << "\n";
  out << "  Buffer size: " << report.config.queue_length << " B\n";
  out << "  Hosts: \n"; // MADARA's trailing blank, kept for scripts that match the whole line
  for (const std::string& host : report.endpoint.local_addresses)
    out << "    " << host << "\n";
  for (const std::string& host : report.endpoint.peer_addresses)
    out << "    " << host << "\n";
  out << "  Data size: " << report.config.payload_size << " B\n";
  out << "  Test time: " << plain(test_seconds(report)) << " s\n";
  // MADARA counted a plain payload as one variable.
  out << "  Num vars: " << (report.config.num_vars == 0 ? 1 : report.config.num_vars) << "\n";
}

// Min, Avg, Max in whole ns; `scale` 0.5 turns the publisher's round trips into RTT/2. Without
// a figure the block is left empty rather than filled with zeros a script would believe.
void write_latency(std::ostream& out, const LatencySummary& latency, double scale)
{
  out << "Latency:\n";
  if (latency.count == 0)
    return;
  out << "  Min: " << whole(static_cast<double>(latency.min_ns) * scale) << " ns\n";
  out << "  Avg: " << whole(latency.mean_ns * scale) << " ns\n";
  out << "  Max: " << whole(static_cast<double>(latency.max_ns) * scale) << " ns\n";
}

struct Received {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  double messages_per_second = 0.0;
  double bytes_per_second = 0.0;
  std::size_t subscribers = 0;
};

void add(Received& total, const SubscriberResult& result)
{
  total.messages += result.counters.received;
  total.bytes += result.counters.payload_bytes;
  total.messages_per_second += result.throughput.messages_per_second;
  total.bytes_per_second += result.throughput.payload_bytes_per_second;
  ++total.subscribers;
}

// The subscriber's own figures, or on the publisher every reporting subscriber's added up.
Received received(const RunReport& report)
{
  Received total;
  if (report.config.role == Role::subscriber) {
    if (report.self)
      add(total, *report.self);
    return total;
  }
  for (const SubscriberResult& sub : report.subscribers)
    if (sub.counters_received)
      add(total, sub);
  return total;
}

void write_throughput(std::ostream& out, const Received& total)
{
  out << "Throughput:\n";
  out << "  Messages received: " << total.messages << "\n";
  out << "  Message rate: " << plain(total.messages_per_second) << " packets/s\n";
  out << "  Data received: " << total.bytes << " B\n";
  out << "  Data rate: " << plain(total.bytes_per_second) << " B/s\n";
}

void write_notes(std::ostream& out, const RunReport& report, const Received& total)
{
  out << "Notes (netprof):\n";
  if (report.config.role == Role::publisher)
    out << "  - latency is half the round trip (RTT/2) of probes echoed by the subscribers, on "
           "the publisher's clock\n";
  else
    out << "  - latency is this subscriber's receive time minus the publisher's send stamp: "
           "valid only when publisher and subscriber share a host's clock; not comparable "
           "across hosts\n";
  out << "  - rates are on each subscriber's clock, from its first to its last message\n";
  if (total.subscribers > 1)
    out << "  - throughput adds up " << total.subscribers << " subscribers' figures\n";
  if (!report.headline.empty())
    out << "  - " << report.headline << "\n";
  if (report.interrupted) // a FAIL lists its problems before its verdict, as MADARA did
    for (const std::string& problem : report.problems)
      out << "  - " << problem << "\n";
  for (const std::string& warning : report.warnings)
    out << "  - " << warning << "\n";
}

} // namespace

void write_madara_report(std::ostream& out, const RunReport& report)
{
  write_madara_status(out, report);
  write_madara_settings(out, report);
  if (report.config.role == Role::publisher)
    write_latency(out, report.rtt, 0.5);
  else
    write_latency(out, report.self ? report.self->one_way : LatencySummary{}, 1.0);
  const Received total = received(report);
  write_throughput(out, total);
  write_notes(out, report, total);
}

} // namespace netprof
