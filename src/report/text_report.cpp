#include "failed_wait.hpp"
#include "text_sections.hpp"

#include <netprof/report.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace netprof {

namespace {

using namespace text_sections;

void write_list(std::ostream& out, const char* heading, const std::vector<std::string>& items)
{
  if (items.empty()) {
    return;
  }
  out << heading << "\n";
  for (const std::string& item : items) {
    out << "  - " << item << "\n";
  }
}

void write_status(std::ostream& out, const RunReport& report)
{
  if (report.interrupted) {
    out << "Test: INTERRUPTED (partial results)\n";
  } else if (report.success) {
    out << "Test: SUCCESS";
    if (!report.headline.empty())
      out << " (" << report.headline << ")";
    out << "\n";
  } else {
    out << "Test: FAIL\n";
  }
  write_list(out, "Problems:", report.problems);
  write_list(out, "Warnings:", report.warnings);
}

std::string usage_text(const std::optional<wire::ProcessUsage>& usage)
{
  if (!usage) {
    return "not reported";
  }
  return "CPU " + format_duration_ns(static_cast<double>(usage->user_cpu_ns)) + " user + " +
         format_duration_ns(static_cast<double>(usage->system_cpu_ns)) + " system, peak RSS " +
         format_bytes(static_cast<double>(usage->peak_rss_bytes));
}

void write_resources(std::ostream& out, const RunReport& report)
{
  out << "Resources:\n";
  // A role of --local-pair --threads measured its own thread: the process is both roles'.
  out << (report.config.pair_layout == PairLayout::threads ? "  This thread: " : "  This process: ")
      << usage_text(report.usage) << "\n";
  for (const SubscriberResult& sub : report.subscribers) {
    out << "  Subscriber " << sub.id << ": " << usage_text(sub.usage) << "\n";
  }
  out << "  Steal time: "
      << (report.steal_percent ? format_percent(*report.steal_percent) : std::string("unknown"))
      << " of the host's CPU time during the run\n";
  if (report.scheduler) {
    const SchedulerLoad& load = *report.scheduler;
    out << "  Scheduler: " << format_count(load.involuntary_switches)
        << " involuntary context switches, "
        << format_duration_ns(load.run_queue_wait_seconds * 1e9) << " waiting for a CPU, "
        << load.runnable_threads << " runnable threads on " << load.online_cores
        << " CPUs at the end (this role may use " << load.cores_given << ")\n";
  }
}

} // namespace

void write_text_report(std::ostream& out, const RunReport& report)
{
  write_status(out, report);
  if (nothing_measured(report)) {
    write_failed_wait(out, report);
    return;
  }
  write_settings(out, report);
  if (report.config.role == Role::publisher) {
    write_publisher_latency(out, report);
    write_publisher_throughput(out, report);
    write_per_topic(out, report);
  } else {
    out << "Latency:\n";
    out << "  Latency is measured on the publisher (round trip); see its report.\n";
    write_subscriber_one_way(out, report);
    write_subscriber_throughput(out, report);
    write_per_publisher(out, report);
    write_abandoned_runs(out, report);
  }
  write_resources(out, report);
  if (report.rejected > 0) {
    out << "Rejected messages: " << format_count(report.rejected);
    if (report.foreign_run_messages > 0)
      out << " (" << format_count(report.foreign_run_messages) << " of another run)";
    out << "\n";
  }
}

} // namespace netprof
