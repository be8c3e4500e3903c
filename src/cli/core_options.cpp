#include "core_options.hpp"

#include <string>

namespace netprof::cli {

namespace po = boost::program_options;

namespace {

// The default is shown in --help as "(=10)" and stored as text, like a value the user gave;
// defaulted() still tells the two apart for the cross-checks.
po::typed_value<std::string>* text(const char* value_name, const char* default_text = nullptr)
{
  auto* value = po::value<std::string>()->value_name(value_name);
  if (default_text != nullptr) {
    value->default_value(default_text);
  }
  return value;
}

} // namespace

std::vector<po::options_description> core_option_groups()
{
  std::vector<po::options_description> groups;

  auto& general = groups.emplace_back("General", help_line_length);
  general.add_options()
    ("help,h", "print this help and exit")
    ("version", "print the version and exit")
    ("list-transports", "print the name and summary of every transport in this build, one "
     "per line, and exit (for scripts)")
    ("id,i", text("N", "0"),
     "0: the publisher; N >= 1: subscriber N (at most 65535)")
    ("local-pair", po::bool_switch(),
     "run a subscriber and a publisher as two processes on loopback and print the "
     "publisher's report (transport: udp unless one is given)");

  auto& test = groups.emplace_back("Test", help_line_length);
  test.add_options()
    ("size,s", text("BYTES", "128"), "payload bytes per message (>= 1)")
    ("queue-length,q", text("BYTES", "1000000"),
     "socket buffers or ring capacity in bytes; 0 = OS default")
    ("time,t", text("SECONDS", "10"),
     "length of the measured phase; fractions allowed (> 0, at most 86400)")
    ("count", text("N"), "measure N messages instead of a time (>= 1)")
    ("send-hz", text("HZ", "0"), "messages per second; 0 = as fast as possible (at most 1e9)")
    ("num-vars", text("N", "0"),
     "variables per message (at most 65535); 0 = one opaque payload")
    ("subscribers", text("N", "1"),
     "the publisher waits for hellos from N subscribers; 0 = start at once (at most 1024)")
    ("wait", text("SECONDS", "10"), "how long either side waits for its peer (> 0)")
    ("warmup-time", text("SECONDS", "0.5"), "unmeasured warm-up before the measured phase")
    ("warmup-count", text("N"), "warm up with N messages instead of a time")
    ("max-loss", text("PERCENT"),
     "FAIL when a subscriber loses more than this share of messages (0 to 100)");

  auto& latency = groups.emplace_back("Latency", help_line_length);
  latency.add_options()
    ("mode", text("stream|ping-pong", "stream"),
     "stream: probes sampled under load; ping-pong: one probe in flight, no load")
    ("probe-hz", text("HZ", "1000"), "probes per second in stream mode (> 0)")
    ("probe-timeout", text("SECONDS", "1"), "ping-pong: how long a probe waits for its echoes before the next is sent; a later echo "
     "is still measured, and reported as late")
    ("idle-timeout", text("SECONDS", "3"),
     "a subscriber gives up on a silent publisher after this");

  auto& waiting = groups.emplace_back("Waiting and pinning", help_line_length);
  waiting.add_options()
    ("wait-strategy", text("block|yield|spin", "block"),
     "block: wait in the kernel (kind to a shared machine); yield: poll, giving the core "
     "away between polls; spin: busy-poll (lowest latency, burns a core)")
    ("cpu", text("LIST"),
     "pin to this CPU; with --local-pair PUB,SUB (or PUB alone); each below the number "
     "of online CPUs");

  auto& output = groups.emplace_back("Output", help_line_length);
  output.add_options()
    ("json", text("FILE"), "also write the report as JSON to FILE")
    ("quiet", po::bool_switch(), "no report on stdout and no status line")
    ("histogram", po::bool_switch(), "add the one-way latency distribution to the report, "
     "as text bars");

  return groups;
}

} // namespace netprof::cli
