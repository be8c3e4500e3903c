#include "core/process/role_command.hpp"

#include "core/process/file_replacement.hpp"
#include "core/process/publisher_lead.hpp"
#include "core/protocol/control_authentication.hpp"
#include "core/roles/live_status.hpp"
#include "core/roles/publisher.hpp"
#include "core/roles/publisher_streams.hpp"
#include "core/roles/subscriber.hpp"
#include "core/roles/verdict.hpp"
#include "core/scheduling/cpu_pinning.hpp"
#include "core/scheduling/process_usage.hpp"
#include "core/scheduling/scheduler_load.hpp"
#include "core/scheduling/scheduling_priority.hpp"
#include "core/scheduling/timer_slack.hpp"

#include "cli/transport_choice.hpp"
#include "cli/version.hpp"

#include <netprof/errors.hpp>
#include <netprof/report.hpp>
#include <netprof/wire.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace netprof {

namespace {

int code(ExitStatus status)
{
  return static_cast<int>(status);
}

// One write per line: std::cerr is unbuffered, so each << would be a write of its own, and two
// processes sharing the terminal (a local pair's) could interleave within a line.
void print_error(std::ostream& err, const std::string& message)
{
  err << ("netprof: " + message + "\n");
}

// Written only at the end, so a run that never reports leaves no empty file behind (the path
// was checked while parsing, so an unwritable one fails before the run), and written whole or
// not at all, so a full disk leaves the last report as it was.
bool write_json_output(const std::string& path, const nlohmann::json& report, std::ostream& err)
{
  try {
    replace_file(path, report.dump(2) + "\n");
    return true;
  } catch (const TransportError& error) {
    print_error(err, "cannot write --json file '" + path + "': " + error.what());
    return false;
  }
}

double expected_seconds(const RunConfig& config)
{
  return config.count ? 0.0 : config.warmup_seconds + config.test_seconds;
}

// The largest control message either role reads, so a transport can refuse anything larger
// from a stranger where no data arrives: final counters (to the publisher) or the
// acknowledgement with its run description (to a subscriber), with a MAC under --key-file.
// Keep it in step with the kinds in wire.hpp. Echoes (header and stamps) are read by the
// publisher through the same limits, so they must never be the largest.
std::size_t largest_control_message(const RunConfig& config)
{
  static_assert(wire::echo_stamps_size < wire::final_counters_with_addendum_size,
                "an echo must fit wherever final counters fit");
  const std::size_t mac = config.shared_secret.empty() ? 0 : ControlAuthentication::tag_size;
  // --echo full: the publisher reads echoes as large as its probes through the same limits.
  const std::size_t full_echo = config.role == Role::publisher && config.echo == EchoSize::full
                                    ? wire::full_echo_payload_size(config.payload_size)
                                    : 0;
  return wire::header_size + std::max({wire::final_counters_with_addendum_size + mac,
                                       wire::run_description_size + mac, full_echo});
}

// What the process and its host were like while it ran, which may explain its figures.
void add_process_facts(RunReport& report, const std::optional<CpuTimes>& cpu_before,
                       const SchedulerSample& scheduler_before)
{
  report.usage = measure_process_usage(report.config.pair_layout);
  report.steal_percent = steal_percent(cpu_before, read_cpu_times());
  report.scheduler = scheduler_load(scheduler_before, sample_scheduler(report.config.pair_layout));
  if (report.scheduler) {
    if (auto warning =
            overload_warning(*report.scheduler, report.steal_percent, report.config.wait_strategy))
      report.warnings.push_back(std::move(*warning));
  }
  report.host = collect_host_facts();
  if (auto warning = idle_halt_warning(report.host, report.config.wait_strategy))
    report.warnings.push_back(std::move(*warning));
  report.version = NETPROF_VERSION;
  report.build_type = NETPROF_BUILD_TYPE;
  report.commit = cli::git_commit();
  if (report.build_type == std::string("Debug"))
    report.warnings.push_back("this netprof is a Debug build: it adds its own slowness to every "
                              "figure; measure with a Release build");
}

// Where a role's stream is: a publisher at its own address, a subscriber at the publisher it
// says hello to.
const std::vector<std::string>& stream_addresses(Role role, const EndpointFacts& facts)
{
  return role == Role::subscriber && !facts.peer_addresses.empty() ? facts.peer_addresses
                                                                   : facts.local_addresses;
}

// Where the status line says a role waits.
StatusContext status_context(const RunConfig& config, const EndpointFacts& facts)
{
  const std::vector<std::string>& addresses = stream_addresses(config.role, facts);
  std::string where;
  for (const std::string& address : addresses)
    where += (where.empty() ? "" : ", ") + address;
  return {where, config.wait_seconds};
}

RoleResult run_role(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                    Clock::time_point started)
{
  LiveCounters live;
  std::optional<StatusLine> status_line;
  if (StatusLine::wanted(config.quiet, expected_seconds(config)))
    status_line.emplace(live, status_context(config, endpoint.facts()));
  return config.role == Role::publisher ? run_publisher(config, endpoint, stop, live)
                                        : run_subscriber(config, endpoint, stop, live, started);
}

// Pins the calling thread (--cpu), sets its priority and minimal timer slack: each is per
// thread, so under --local-pair --threads (or for each stream of --publishers and --topics) the
// role's thread only.
void prepare_role_thread(const RunConfig& config)
{
  if (!config.cpus.empty())
    pin_to_cpu(config.cpus.front());
  apply_scheduling_priority(config);
  use_minimal_timer_slack();
}

// The first of stream_addresses, for a stream's line in the report.
std::string stream_address(const Endpoint& endpoint, Role role)
{
  const EndpointFacts facts = endpoint.facts();
  const std::vector<std::string>& at = stream_addresses(role, facts);
  return at.empty() ? std::string() : at.front();
}

// A process of several streams (--publishers, --topics): a session for each, with an endpoint
// of its own on a thread of its own (the first on this thread), so one stream never waits
// behind another's in our code. Their figures become one report.
RoleResult run_streams(const RunConfig& config, const std::vector<PlannedStream>& streams,
                       std::vector<std::unique_ptr<Endpoint>>& endpoints, const StopFlag& stop,
                       Clock::time_point started)
{
  std::vector<RoleResult> results(endpoints.size());
  std::vector<std::exception_ptr> errors(endpoints.size());
  std::vector<std::thread> others;
  for (std::size_t stream = 1; stream < endpoints.size(); ++stream) {
    others.emplace_back([&, stream] {
      try {
        prepare_role_thread(config);
        LiveCounters live;
        results[stream] = config.role == Role::publisher
                              ? run_publisher(config, *endpoints[stream], stop, live)
                              : run_subscriber(config, *endpoints[stream], stop, live, started);
      } catch (...) {
        errors[stream] = std::current_exception();
      }
    });
  }
  try {
    results[0] = run_role(config, *endpoints[0], stop, started);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& thread : others)
    thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error)
      std::rethrow_exception(error);
  }
  std::vector<StreamName> names;
  for (const PlannedStream& stream : streams)
    names.push_back({stream.publisher, stream.topic});
  RoleResult merged = merged_streams(std::move(results), names);
  for (std::size_t i = 0; i < merged.report.per_publisher.size(); ++i)
    merged.report.per_publisher[i].address = stream_address(*endpoints[i], config.role);
  for (std::size_t i = 0; i < merged.report.per_topic.size(); ++i)
    merged.report.per_topic[i].address = stream_address(*endpoints[i], config.role);
  return merged;
}

// The command line's request, and what only the roles know: their largest control message.
EndpointRequest endpoint_request(const RunConfig& config)
{
  EndpointRequest request = cli::endpoint_request(config);
  request.largest_control_message = largest_control_message(config);
  return request;
}

// One endpoint, or one for each stream under --publishers and --topics, each checked against
// the run's payload.
std::vector<std::unique_ptr<Endpoint>> open_endpoints(const ParsedCommandLine& parsed,
                                                      const EndpointRequest& request)
{
  std::vector<std::unique_ptr<Endpoint>> endpoints;
  if (parsed.streams.empty())
    endpoints.push_back(parsed.plan.open(request));
  for (const PlannedStream& stream : parsed.streams)
    endpoints.push_back(stream.plan.open(request));
  for (const auto& endpoint : endpoints)
    check_payload(parsed.config, endpoint->facts());
  return endpoints;
}

// The text report (on stderr when the JSON goes to stdout), then the JSON, with the other
// publishers' verdicts when this is publisher 0 gathering them. False when the JSON file could
// not be written (said on `err`).
bool write_reports(const RunConfig& config, const RunReport& report, const LeadAddress& lead,
                   const std::optional<RelayedVerdict>& relayed, std::ostream& out,
                   std::ostream& err)
{
  std::ostream& text_out = json_on_stdout(config) ? err : out;
  if (!config.quiet) {
    if (config.report_format == ReportFormat::madara)
      write_madara_report(text_out, report);
    else
      write_text_report(text_out, report);
    if (relayed && config.report_format != ReportFormat::madara)
      write_relayed_section(text_out, lead, *relayed);
  }
  text_out.flush();
  nlohmann::json json = report_to_json(report);
  if (relayed)
    json["publishers"] = relayed->entries;
  if (json_on_stdout(config))
    out << json.dump(2) << "\n" << std::flush;
  else if (!config.json_path.empty() && !write_json_output(config.json_path, json, err))
    return false;
  return true;
}

} // namespace

int run_role_command(const ParsedCommandLine& parsed, const RoleHooks& hooks, std::ostream& out,
                     std::ostream& err)
{
  const RunConfig& config = parsed.config;
  const Clock::time_point started = Clock::now();
  prepare_role_thread(config);
  const bool relays = relays_reports(config);
  const LeadAddress lead = relays ? lead_address(config.lead, parsed.first_stream) : LeadAddress{};
  const EndpointRequest request = endpoint_request(config);
  EffectiveQos qos = parsed.plan.qos(config.role);
  qos.requested = request.qos;
  std::vector<std::unique_ptr<Endpoint>> endpoints = open_endpoints(parsed, request);
  // Listening before the run, so that no other publisher finds nobody there.
  std::optional<ReportListener> listener;
  if (relays && config.id == 0)
    listener.emplace(lead, config.publishers, config.shared_secret);
  if (hooks.ready)
    hooks.ready(); // the local pair starts the subscriber only now

  const std::optional<CpuTimes> cpu_before = read_cpu_times();
  const SchedulerSample scheduler_before = sample_scheduler(config.pair_layout);
  Endpoint& endpoint = *endpoints.front();
  RoleResult result = endpoints.size() > 1
                          ? run_streams(config, parsed.streams, endpoints, hooks.stop, started)
                          : run_role(config, endpoint, hooks.stop, started);
  RunReport& report = result.report;  // its settings: the run's, as its role knows them
  report.endpoint = endpoint.facts(); // again: notes gathered during the run belong in it
  report.endpoint.qos = std::move(qos);
  add_transport_diagnoses(report);
  add_process_facts(report, cpu_before, scheduler_before);

  std::optional<RelayedVerdict> relayed;
  if (listener)
    relayed = gather_other_publishers(*listener, lead, result, hooks.stop, err);
  else if (relays)
    relay_to_lead(lead, report, hooks.stop);

  if (!write_reports(config, report, lead, relayed, out, err))
    return code(ExitStatus::runtime);
  return code(result.status);
}

int run_role_arguments(const std::vector<std::string>& args, PairLayout layout,
                       const RoleHooks& hooks, std::ostream& out, std::ostream& err)
{
  return exit_status_of(err, [&] {
    TransportRegistry registry;
    register_builtin_transports(registry);
    std::vector<const char*> argv = {"netprof"};
    for (const std::string& arg : args)
      argv.push_back(arg.c_str());
    const ParsedCommandLine parsed =
        parse_command_line(static_cast<int>(argv.size()), argv.data(), registry, layout);
    return run_role_command(parsed, hooks, out, err);
  });
}

int exit_status_of(std::ostream& err, const std::function<int()>& body)
{
  try {
    return body();
  } catch (const UsageError& error) {
    print_error(err, error.what());
    return code(ExitStatus::usage);
  } catch (const std::exception& error) {
    // Also what the system refuses while a command line is worked out (a free port to pick
    // for the local pair, under a descriptor limit): a runtime error, not a crash.
    print_error(err, error.what());
    return code(ExitStatus::runtime);
  }
}

} // namespace netprof
