#include "man_page.hpp"

#include "command_summary.hpp"
#include "option_table.hpp"

#include <cctype>
#include <sstream>

namespace netprof::cli {

namespace {

bool is_placeholder(const std::string& word)
{
  bool has_letter = false;
  for (const char c : word) {
    if (std::islower(static_cast<unsigned char>(c)))
      return false;
    has_letter = has_letter || std::isupper(static_cast<unsigned char>(c));
  }
  return has_letter;
}

// A usage line's arguments with the placeholders (TRANSPORT-OPTIONS, N) in italics.
std::string usage_arguments(const std::string& arguments)
{
  std::istringstream words(arguments);
  std::string word;
  std::string result;
  while (words >> word) {
    const std::size_t first = word.find_first_not_of('[');
    const std::size_t last = word.find_last_not_of(']');
    const std::string core = word.substr(first, last + 1 - first);
    result += result.empty() ? "" : " ";
    result += word.substr(0, first);
    result += is_placeholder(core) ? "\\fI" + roff_escaped(core) + "\\fR" : roff_escaped(core);
    result += word.substr(last + 1);
  }
  return result;
}

// A paragraph of literal command lines, indented.
std::string commands(const std::vector<std::string>& lines)
{
  std::string text = ".PP\n.RS 4\n.nf\n";
  for (const std::string& line : lines) {
    text += roff_escaped(line) + "\n";
  }
  return text + ".fi\n.RE\n";
}

// ".TP" and the tag, then the body: one entry of a tagged list.
std::string tagged(const std::string& tag, const std::string& body)
{
  return ".TP\n" + tag + "\n" + roff_escaped(body) + "\n";
}

std::string option_entries(const OptionGroup& group)
{
  std::string text;
  for (const OptionSpec& spec : group.options) {
    text += tagged(roff_option_tag(spec), spec.help);
    if (spec.default_text && !spec.default_text->empty()) {
      text += ".br\nDefault: " + roff_escaped(*spec.default_text) + ".\n";
    }
  }
  return text;
}

std::string name_and_synopsis()
{
  std::string text = ".SH NAME\nnetprof \\- " + roff_escaped(tagline()) + "\n.SH SYNOPSIS\n";
  for (const CommandLine& usage : usages()) {
    text += "\\fBnetprof\\fR " + usage_arguments(usage.arguments) + "\n.br\n";
  }
  return text;
}

std::string description()
{
  return ".SH DESCRIPTION\n" +
         roff_escaped(
             "netprof measures how fast a pub/sub transport moves messages between real "
             "processes, on one host or across hosts. Start one publisher (-i 0) and one or "
             "more subscribers (-i 1, -i 2, ...), each with the options of the same transport. "
             "The publisher waits for its subscribers (--wait, --subscribers), warms up "
             "(--warmup-time, not counted), measures for -t seconds (or --count messages), "
             "ends the test, collects every subscriber's counters and prints one report; each "
             "subscriber prints its own.") +
         "\n.PP\n" +
         roff_escaped(
             "Latency is a round trip on the publisher's own clock: subscribers echo probes, "
             "and one-way latency is reported as RTT/2 and named so. --mode stream samples it "
             "under load, --mode ping-pong keeps one probe in flight. Throughput, loss, "
             "reordering and duplicates are counted on each subscriber's clock.") +
         "\n.PP\n" +
         roff_escaped("--local-pair runs a subscriber and a publisher as two processes on "
                      "loopback and prints the publisher's report: the quick start. --json "
                      "FILE writes the report as JSON, --format madara prints MADARA "
                      "network_profiler's layout for the scripts that parse it.") +
         "\n";
}

std::string options_section(const TransportRegistry& registry)
{
  std::string text = ".SH OPTIONS\n";
  for (const OptionGroup& group : documented_core_options(registry)) {
    text += ".SS " + roff_escaped(group.caption) + "\n" + option_entries(group);
  }
  text += ".SH TRANSPORTS\n" +
          roff_escaped("Give the options of exactly one transport (" +
                       std::string(transports_rule) + ").") +
          "\n";
  for (const TransportOptions& transport : transport_options(registry)) {
    text += ".SS " + roff_escaped(transport.name) + "\n" + roff_escaped(transport.summary) + "\n" +
            option_entries(transport.options);
  }
  return text;
}

std::string exit_status_section()
{
  std::string text = ".SH EXIT STATUS\n";
  for (const ExitStatus& row : exit_statuses()) {
    text += tagged("\\fB" + std::to_string(row.status) + "\\fR", row.meaning);
  }
  return text;
}

std::string environment_and_files()
{
  return ".SH ENVIRONMENT\n" +
         tagged("\\fBTMPDIR\\fR",
                "where --local-pair puts the ZeroMQ ipc:// sockets it picks itself (ipc://*), "
                "when it is an absolute path short enough for a socket; /tmp otherwise.") +
         tagged("\\fBNETPROF_LOCAL_PAIR_READY_FD\\fR",
                "set by --local-pair for its two processes; not for users.") +
         ".PP\nnetprof reads no other environment variable.\n.SH FILES\n" +
         tagged("\\fI/dev/shm/netprof\\-NAME\\fR",
                "the shared-memory ring of --shm NAME, created by the publisher. --local-pair "
                "removes the rings of earlier pairs that were killed outright.") +
         tagged("ipc:// paths",
                "the socket file of a ZeroMQ ipc:// endpoint (--zmq ipc://PATH), made by the "
                "process that binds it; netprof never replaces a file that is not a socket.") +
         tagged("\\fB\\-\\-json\\fR \\fIFILE\\fR",
                "replaced whole at the end of a run, or left as it was.") +
         tagged("\\fB\\-\\-key\\-file\\fR \\fIFILE\\fR",
                "the shared secret, which must be readable by its owner alone.");
}

std::string examples()
{
  const std::vector<std::string> terminals = aligned(two_terminals(), "# ");
  return ".SH EXAMPLES\n" + roff_escaped("Two terminals: " + std::string(two_terminals_rule)) +
         ".\n" + commands(terminals) +
         ".PP\nA local pair, then one over shared memory in ping\\-pong mode:\n" +
         commands({std::string("netprof ") + local_pair_example,
                   "netprof --local-pair --shm --mode ping-pong -t 3"}) +
         ".PP\nA sweep over payload sizes and transports, one CSV, then its plots:\n" +
         commands({"netprof-sweep --transports udp,zmq,shm --repetitions 3 --out results/sweep1",
                   "netprof-plot results/sweep1/sweep.csv"}) +
         ".SH SEE ALSO\n\\fBnetprof\\-sweep\\fR \\-\\-help, \\fBnetprof\\-plot\\fR \\-\\-help; "
         "the documents in share/doc/netprof under the install prefix "
         "(/usr/share/doc/netprof from the Debian package).\n";
}

} // namespace

std::string roff_escaped(const std::string& text)
{
  std::string result;
  result.reserve(text.size());
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) {
      result += "\\&";
    }
    if (c == '\\') {
      result += "\\e";
    } else if (c == '-') {
      result += "\\-";
    } else {
      result += c;
    }
    line_start = c == '\n';
  }
  return result;
}

std::string roff_option_tag(const OptionSpec& spec)
{
  std::string tag;
  if (spec.short_name != '\0') {
    tag += "\\fB\\-" + std::string(1, spec.short_name) + "\\fR, ";
  }
  tag += "\\fB\\-\\-" + roff_escaped(spec.long_name) + "\\fR";
  if (!std::holds_alternative<Switch>(spec.rule)) {
    const std::string value = "\\fI" + roff_escaped(spec.value_name) + "\\fR";
    tag += spec.implicit_text ? " [" + value + "]" : " " + value;
  }
  return tag;
}

std::string man_page(const TransportRegistry& registry)
{
  return ".\\\" netprof(1), written by netprof_docgen from the option table: do not edit.\n"
         ".TH NETPROF 1 \"\" \"netprof " NETPROF_VERSION "\" \"User Commands\"\n"
         // Left-aligned and unhyphenated: option names and addresses stay whole.
         ".nh\n.ad l\n" +
         name_and_synopsis() + description() + options_section(registry) + exit_status_section() +
         environment_and_files() + examples();
}

} // namespace netprof::cli
