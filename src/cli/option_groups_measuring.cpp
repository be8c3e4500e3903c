#include "option_fields.hpp"
#include "option_groups.hpp"
#include "option_rows.hpp"

#include <netprof/qos.hpp>

namespace netprof::cli {

namespace {

// In the order of the choice's names: reliable, best-effort.
void assign_reliability(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  if (const auto index = values.choice(spec))
    config.qos.reliability = *index == 0 ? Reliability::reliable : Reliability::best_effort;
}

void assign_history(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  if (const auto text = values.text(spec))
    config.qos.history = parse_history(*text);
}

} // namespace

// Both roles get them: where the publisher's alone decides, a subscriber's states what it
// expects (Transport::effective_qos says which, and the report shows it).
void add_quality_of_service(std::vector<CoreOption>& rows)
{
  const std::string heading = "Quality of service (docs/transports.md)";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("reliability", "reliable|best-effort", Choice{{"reliable", "best-effort"}},
                std::nullopt,
                "reliable: nothing is lost, the publisher waits instead (shm keep-all, "
                "--zmq-nodrop, tcp, uds, mq); best-effort: a full queue or a lost datagram "
                "loses messages (udp, shm keep-last, zmq). Refused, with why, where the "
                "transport cannot; without it, the transport's own is stated in the report"),
           Readers::both, assign_reliability},
          {heading,
           spec("history", "keep-last[:N]|keep-all", Text{}, std::nullopt,
                "keep-last: a reader that lags loses what it did not read in time (N: the "
                "messages kept, where the transport counts them, 1 to 2147483647); keep-all: "
                "the publisher waits for its slowest reader. Refused where it has no meaning "
                "(udp)"),
           Readers::both, assign_history},
      });
}

void add_latency(std::vector<CoreOption>& rows)
{
  const std::string heading = "Latency";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("mode", "stream|ping-pong",
                Choice{{to_string(Mode::stream), to_string(Mode::ping_pong)}}, "stream",
                "stream: probes sampled under load; ping-pong: one probe in flight, no load"),
           Readers::publisher, field<&RunConfig::mode>},
          {heading,
           spec("probe-hz", "HZ", RealNumber{0.0, false, max_hz, "a rate in Hz > 0, at most 1e9"},
                "1000", "probes per second in stream mode (> 0)"),
           Readers::publisher, field<&RunConfig::probe_hz>},
          {heading,
           spec("probe-timeout", "SECONDS", positive_seconds(), "1",
                "ping-pong: how long a probe waits for its echoes before the next is sent; a "
                "later echo is still measured, and reported as late"),
           Readers::publisher, field<&RunConfig::probe_timeout_seconds>},
          {heading,
           spec("echo", "record|full",
                Choice{{to_string(EchoSize::record), to_string(EchoSize::full)}}, "record",
                "what a subscriber sends back for each probe: record, its header and stamps "
                "(68 B); full, as many bytes as the probe (as sockperf, ddsperf and iceperf do)"),
           Readers::publisher, field<&RunConfig::echo>},
          {heading,
           spec("idle-timeout", "SECONDS", positive_seconds(), "3",
                "a subscriber gives up on a silent publisher after this"),
           Readers::subscriber, field<&RunConfig::idle_timeout_seconds>},
      });
}

} // namespace netprof::cli
