#include "option_fields.hpp"
#include "option_groups.hpp"
#include "option_rows.hpp"

#include "../options/number_parsing.hpp"
#include "../options/value_checks.hpp"

#include <netprof/errors.hpp>

namespace netprof::cli {

namespace {

// The local pair takes a CPU for each of its processes; one process takes one.
void assign_cpus(RunConfig& config, const OptionValues& values, const OptionSpec& cpu)
{
  field<&RunConfig::cpus>(config, values, cpu);
  const std::size_t most = config.local_pair ? 2 : 1;
  if (config.cpus.size() > most) {
    throw UsageError(options::invalid_value(cpu, *values.text(cpu)) +
                     (config.local_pair
                          ? ": --local-pair takes one or two CPU numbers (publisher,subscriber)"
                          : ": one process takes one CPU number (two only with --local-pair)"));
  }
}

// Niceness is signed, which no whole-number rule takes.
void assign_nice(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  const std::optional<std::string> text = values.text(spec);
  if (!text)
    return;
  const auto parsed = options::parse_finite_double(*text);
  if (parsed.status != options::NumberStatus::ok || parsed.value < -20 || parsed.value > 19 ||
      parsed.value != static_cast<double>(static_cast<int>(parsed.value)))
    throw UsageError(options::invalid_value(spec, *text) +
                     ": expected a whole number from -20 (most favoured) to 19");
  config.nice = static_cast<int>(parsed.value);
}

} // namespace

void add_waiting_and_pinning(std::vector<CoreOption>& rows)
{
  const std::string heading = "Waiting and pinning";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("wait-strategy", "block|poll-then-block|yield|spin",
                Choice{{to_string(WaitStrategy::block), to_string(WaitStrategy::poll_then_block),
                        to_string(WaitStrategy::yield), to_string(WaitStrategy::spin)}},
                "block",
                "block: every receive sleeps in the kernel, as a blocking program's does (kind "
                "to a shared machine); poll-then-block: a few polls while messages flow, then "
                "sleep; yield: poll, giving the core away between polls; spin: busy-poll "
                "(lowest latency, burns a core)"),
           Readers::both, field<&RunConfig::wait_strategy>},
          {heading,
           spec("cpu", "LIST", CpuList{}, std::nullopt,
                "pin to this CPU; with --local-pair PUB,SUB (or PUB alone), each process or "
                "thread to its own; each below the number of online CPUs",
                PairRoute::split),
           Readers::both, assign_cpus},
          {heading,
           spec("nice", "N", Text{}, std::nullopt,
                "run at this niceness, -20 (most favoured) to 19; below 0 needs root or "
                "CAP_SYS_NICE"),
           Readers::both, assign_nice},
          {heading,
           spec("rt-priority", "N", whole(1, 99), std::nullopt,
                "run under SCHED_FIFO at this priority (1 to 99); needs root, CAP_SYS_NICE or "
                "an RLIMIT_RTPRIO that allows it"),
           Readers::both, field<&RunConfig::rt_priority>},
      });
}

void add_output(std::vector<CoreOption>& rows)
{
  const std::string heading = "Output";
  // The pair's subscriber writes no report: the publisher's consolidated one covers both.
  const PairRoute publisher = PairRoute::publisher_only;
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("json", "FILE", FilePath{}, std::nullopt,
                "also write the report as JSON to FILE; - writes it to stdout, and the text "
                "report to stderr (never through a link in a folder others may write to, nor "
                "over another user's file: exit 2)",
                publisher),
           Readers::both, field<&RunConfig::json_path>},
          {heading,
           spec("format", "netprof|madara",
                Choice{{to_string(ReportFormat::netprof), to_string(ReportFormat::madara)}},
                "netprof",
                "the report's layout on stdout: netprof's own, or MADARA network_profiler's "
                "(its field names and units, for scripts that parse it)",
                publisher),
           Readers::both, field<&RunConfig::report_format>},
          {heading,
           spec("interval", "SECONDS", positive_seconds(), std::nullopt,
                "print a line of figures every SECONDS of the measured phase (as iperf3 -i): "
                "messages, bytes, loss, send attempts, latency p50/p99; the JSON gets "
                "intervals[] (> 0, at most the run's -t)"),
           Readers::both, field<&RunConfig::interval_seconds>},
          {heading, switch_spec("quiet", "no report on stdout and no status line", publisher),
           Readers::both, field<&RunConfig::quiet>},
          {heading,
           switch_spec("histogram",
                       "add the one-way latency distribution to the report, as "
                       "text bars",
                       publisher),
           Readers::both, field<&RunConfig::print_histogram>},
      });
}

void add_security(std::vector<CoreOption>& rows)
{
  rows.push_back(
      {"Security",
       spec("key-file", "FILE", Text{}, std::nullopt,
            "a shared secret (16 B or more, readable by its owner alone) that every process of "
            "the run is given: every control message (join, end, final counters) is then "
            "authenticated, for networks you do not trust"),
       Readers::both, field<&RunConfig::key_file>});
}

} // namespace netprof::cli
