#include "text_sections.hpp"

#include <netprof/report.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace netprof::text_sections {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& suffix)
{
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) {
      out += ", ";
    }
    out += item + suffix;
  }
  return out;
}

std::string buffer_line(const EndpointFacts& endpoint)
{
  std::string requested = endpoint.requested_buffer_bytes == 0
                              ? std::string("OS default")
                              : format_count(endpoint.requested_buffer_bytes) + " B";
  std::string granted;
  if (endpoint.granted_send_buffer_bytes == 0 && endpoint.granted_receive_buffer_bytes == 0) {
    granted = "not reported by the transport";
  } else {
    granted = "send " + format_count(endpoint.granted_send_buffer_bytes) + " B, receive " +
              format_count(endpoint.granted_receive_buffer_bytes) + " B";
  }
  return "requested " + requested + "; granted " + granted;
}

// What the endpoint bound and whom it sends to, as one line.
std::string hosts_line(const EndpointFacts& endpoint)
{
  std::string hosts = join(endpoint.local_addresses, " (bound)");
  std::string peers = join(endpoint.peer_addresses, " (peer)");
  if (!hosts.empty() && !peers.empty()) {
    hosts += ", ";
  }
  hosts += peers;
  return hosts.empty() ? std::string("none reported") : hosts;
}

// Only what the user changed: most runs keep the default priority and drop nothing.
void write_priority_and_drops(std::ostream& out, const RunConfig& config)
{
  if (config.nice) {
    out << "  Nice: " << *config.nice << "\n";
  }
  if (config.rt_priority) {
    out << "  Real-time priority: SCHED_FIFO " << *config.rt_priority << "\n";
  }
  if (config.drop_percent > 0.0) {
    out << "  Injected drops: " << format_percent(config.drop_percent)
        << " of received data, dropped before counting (seed " << config.drop_seed << ")\n";
  }
}

// "reliable, keep-all of 1,000 messages (set by the publisher; asked: none): <what it means>".
std::string qos_line(const EffectiveQos& qos)
{
  std::string line =
      std::string(to_string(qos.reliability)) + ", history " + to_string(qos.history);
  if (qos.depth)
    line += " of " + format_count(*qos.depth) + " messages";
  line += std::string(" (set by ") + (qos.set_by == QosSetBy::every_process ? "" : "the ") +
          to_string(qos.set_by) + "; asked: " + to_string(qos.requested) + ")";
  if (!qos.meaning.empty())
    line += ": " + qos.meaning;
  return line;
}

// How long haltpoll lets an idle vCPU poll before it halts, in words.
std::string halt_polling(std::uint64_t guest_halt_poll_ns)
{
  if (guest_halt_poll_ns == 0)
    return "idle vCPUs halt at once";
  return "idle vCPUs poll " + format_duration_ns(static_cast<double>(guest_halt_poll_ns)) +
         " before halting";
}

void write_machine(std::ostream& out, const HostFacts& host)
{
  out << "  Machine: " << (host.hostname.empty() ? std::string("unknown") : host.hostname);
  if (!host.kernel.empty()) {
    out << ", " << host.kernel;
  }
  out << ", " << (host.cpu_model.empty() ? std::string("unknown CPU") : host.cpu_model) << ", "
      << host.cores << " cores";
  if (!host.clock_source.empty()) {
    out << ", clock source " << host.clock_source;
  }
  if (!host.cpu_governor.empty()) {
    out << ", governor " << host.cpu_governor;
  }
  if (!host.cpu_idle_driver.empty()) {
    out << ", cpuidle " << host.cpu_idle_driver;
    if (host.guest_halt_poll_ns)
      out << " (" << halt_polling(*host.guest_halt_poll_ns) << ")";
  }
  out << "\n";
}

// What the run sends, how fast, and how its roles wait and run.
void write_workload(std::ostream& out, const RunConfig& config)
{
  out << "  Data size: " << format_count(config.payload_size) << " B\n";
  out << "  Num vars: " << config.num_vars << "\n";
  if (config.count) {
    out << "  Count: " << format_count(*config.count) << " messages\n";
  } else {
    out << "  Test time: " << seconds(config.test_seconds) << "\n";
  }
  if (config.count_received)
    out << "  Count received: " << format_count(*config.count_received)
        << (config.mode == Mode::ping_pong ? " round trips" : " measured messages")
        << " per subscriber (the measured phase ends there, or at the test time)\n";
  if (config.send_hz > 0.0) {
    out << "  Send rate: " << format_number(config.send_hz) << " Hz";
    // The pace is the publisher's own: a subscriber's settings come from the run description,
    // which does not carry it.
    if (config.role == Role::publisher)
      out << " (--pace " << to_string(config.pace) << ")";
    out << "\n";
  } else {
    out << "  Send rate: as fast as possible\n";
  }
  if (config.warmup_count) {
    out << "  Warm-up: " << format_count(*config.warmup_count) << " messages\n";
  } else if (config.warmup_seconds > 0.0) {
    out << "  Warm-up: " << seconds(config.warmup_seconds) << "\n";
  } else {
    out << "  Warm-up: none\n";
  }
  out << "  Wait strategy: " << to_string(config.wait_strategy) << "\n";
  std::string cpus;
  for (int cpu : config.cpus) {
    cpus += (cpus.empty() ? "" : ", ") + std::to_string(cpu);
  }
  out << "  CPU pinning: " << (cpus.empty() ? std::string("none") : cpus) << "\n";
  write_priority_and_drops(out, config);
}

// Who sends to whom: several publishers, several topics, and how a message is dealt.
void write_topology(std::ostream& out, const RunReport& report)
{
  const RunConfig& config = report.config;
  if (config.publishers > 1) {
    out << "  Publishers: " << config.publishers
        << (config.role != Role::publisher ? " (each on its own stream, received on a thread of "
                                             "its own)"
            : config.id == 0
                ? " (this is publisher 0, at the addresses given; each publisher "
                  "reports its own stream)"
                : " (this is publisher " + std::to_string(config.id) +
                      ", at the addresses given moved by " + std::to_string(config.id) +
                      "; each publisher reports its own stream)")
        << "\n";
  }
  if (config.topics > 1) {
    out << "  Topics: " << config.topics
        << " (each on addresses of its own and a thread of its own; the figures below are "
           "the first stream's, and each stream's follows them)\n";
  }
  if (config.fanout == Fanout::round_robin) {
    out << (report.dealt_by_transport
                ? "  Fan-out: round-robin, dealt by the transport (it hands each message to the "
                  "next subscriber ready for one; netprof cannot count what went to each)\n"
                : "  Fan-out: round-robin (each message to one subscriber in turn)\n");
  }
}

} // namespace

void write_settings(std::ostream& out, const RunReport& report)
{
  const RunConfig& config = report.config;
  const EndpointFacts& endpoint = report.endpoint;

  out << "Settings:\n";
  out << "  Transport type: " << config.transport_name << "\n";
  out << "  Role: " << to_string(config.role) << " id " << config.id << "\n";
  if (config.mode == Mode::stream) {
    out << "  Mode: stream with probes at " << format_number(config.probe_hz) << " Hz\n";
  } else {
    out << "  Mode: ping-pong (one probe in flight, timeout "
        << seconds(config.probe_timeout_seconds) << ")\n";
  }
  write_topology(out, report);
  out << "  QoS: " << qos_line(endpoint.qos) << "\n";
  out << "  Buffer size: " << buffer_line(endpoint) << "\n";
  for (const std::string& note : endpoint.notes) {
    out << "    note: " << note << "\n";
  }
  out << "  Hosts: " << hosts_line(endpoint) << "\n";
  if (config.pair_layout != PairLayout::none) {
    out << "  Local pair: "
        << (config.pair_layout == PairLayout::threads ? "threads of one process"
            : config.publishers > 1
                ? std::to_string(config.publishers) + " publisher and " +
                      std::to_string(config.subscribers) + " subscriber processes"
            : config.subscribers > 1
                ? "a publisher and " + std::to_string(config.subscribers) + " subscriber processes"
                : "two processes")
        << "\n";
  }
  if (endpoint.discovery_seconds) {
    out << "  Discovery: " << format_number(*endpoint.discovery_seconds * 1e3)
        << " ms from opening until its DDS readers and writers were matched\n";
  }
  if (endpoint.max_message_size > 0) {
    out << "  Max message size: " << format_count(endpoint.max_message_size) << " B\n";
  }
  write_machine(out, report.host);
  write_workload(out, report.config);
  out << "  Run id: " << format_run_id(report.run_id) << "\n";
}

} // namespace netprof::text_sections
