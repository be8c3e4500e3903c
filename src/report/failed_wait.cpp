#include "failed_wait.hpp"

#include <string>
#include <vector>

namespace netprof {

namespace {

void append(std::string& text, const std::vector<std::string>& addresses, const char* marker)
{
  for (const std::string& address : addresses)
    text += (text.empty() ? "" : ", ") + address + marker;
}

} // namespace

bool nothing_measured(const RunReport& report) noexcept
{
  if (report.config.role == Role::publisher)
    return report.subscribers.empty() && report.messages_sent == 0;
  return !report.end_received && report.self && report.self->counters.received == 0 &&
         report.abandoned_runs.empty();
}

void write_failed_wait(std::ostream& out, const RunReport& report)
{
  const RunConfig& config = report.config;
  std::string hosts;
  append(hosts, report.endpoint.local_addresses, " (bound)");
  append(hosts, report.endpoint.peer_addresses, " (peer)");
  out << "Settings:\n"
      << "  Transport type: " << config.transport_name << "\n"
      << "  Role: " << to_string(config.role) << " id " << config.id << "\n"
      << "  Hosts: " << (hosts.empty() ? std::string("none reported") : hosts) << "\n"
      << "  Wait: " << format_number(config.wait_seconds) << " s (--wait)\n"
      << "  Run id: " << format_run_id(report.run_id) << "\n"
      << "Nothing was measured"
      << (config.json_path.empty() ? std::string(".")
                                   : ": the JSON report still has every setting and zero.")
      << "\n";
}

} // namespace netprof
