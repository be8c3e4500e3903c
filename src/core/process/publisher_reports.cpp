#include "core/process/publisher_reports.hpp"

#include "core/process/file_replacement.hpp"

#include <netprof/errors.hpp>
#include <netprof/report.hpp>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace netprof {

namespace {

using nlohmann::json;

// The report a publisher wrote, or null when there is none to read (it failed before it
// reported).
json read_report(const std::string& path)
{
  std::ifstream in(path);
  if (!in)
    return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

json publisher_entry(std::uint32_t id, const json& report)
{
  const auto part = [&](const char* key) {
    return report.is_object() && report.contains(key) ? report[key] : json(nullptr);
  };
  return json{{"id", id},
              {"result", part("result")},
              {"publisher", part("publisher")},
              {"subscribers", part("subscribers")}};
}

// A report that a publisher of this run could have written: its settings say it is publisher
// `id` of `publishers`, and it has a verdict and figures of the types the schema gives.
bool plausible_report(const json& report, std::uint32_t id, std::uint32_t publishers)
{
  if (!report.is_object())
    return false;
  const json& settings = report.value("settings", json());
  const json& result = report.value("result", json());
  const json& figures = report.value("publisher", json());
  return settings.is_object() && settings.value("id", json()) == id &&
         settings.value("publishers", json()) == publishers && result.is_object() &&
         result.value("status", json()).is_string() &&
         result.value("problems", json()).is_array() && figures.is_object() &&
         report.value("subscribers", json()).is_array();
}

std::uint64_t count_in(const json& object, const char* key)
{
  const json& value = object.value(key, json());
  return value.is_number_unsigned() ? value.get<std::uint64_t>() : 0;
}

double number_in(const json& object, const char* key)
{
  const json& value = object.value(key, json());
  return value.is_number() ? value.get<double>() : 0.0;
}

// "FAIL: its first problem", or the status alone.
std::string failure_of(const json& result)
{
  std::string text = result["status"].get<std::string>();
  for (const json& problem : result["problems"]) {
    if (problem.is_string())
      return text + ": " + problem.get<std::string>();
  }
  return text;
}

// One publisher's line: "1: SUCCESS; 12,345 sent, RTT p50 15.2 us, p99 40.1 us; subscriber 2:
// 12,345 received, 0 lost".
std::string summary_line(std::uint32_t id, const json& report)
{
  const json& result = report["result"];
  const json& figures = report["publisher"];
  const bool passed = result["status"] == "SUCCESS";
  std::string line = std::to_string(id) + ": " +
                     (passed ? result["status"].get<std::string>() : failure_of(result)) + "; " +
                     format_count(count_in(figures, "messages_sent")) + " sent";
  const json rtt = figures.contains("latency") && figures["latency"].is_object()
                       ? figures["latency"].value("rtt_ns", json())
                       : json();
  if (rtt.is_object() && count_in(rtt, "count") > 0)
    line += ", RTT p50 " + format_duration_ns(number_in(rtt, "p50")) + ", p99 " +
            format_duration_ns(number_in(rtt, "p99"));
  for (const json& subscriber : report["subscribers"]) {
    if (!subscriber.is_object())
      continue;
    line += "; subscriber " + std::to_string(count_in(subscriber, "id")) + ": " +
            format_count(count_in(subscriber, "received")) + " received, " +
            format_count(count_in(subscriber, "lost")) + " lost";
  }
  return line;
}

} // namespace

void gather_publisher_reports(const std::string& path, std::uint32_t publishers)
{
  json first = read_report(path);
  if (!first.is_object())
    throw TransportError("cannot gather the publishers' reports: '" + path +
                         "' holds no JSON report of publisher 0");
  json gathered = json::array({publisher_entry(0, first)});
  for (std::uint32_t id = 1; id < publishers; ++id) {
    const std::string own = path + "." + std::to_string(id);
    gathered.push_back(publisher_entry(id, read_report(own)));
    unlink(own.c_str());
  }
  first["publishers"] = std::move(gathered);
  replace_file(path, first.dump(2) + "\n");
}

RelayedVerdict judge_relayed_reports(const nlohmann::json& own,
                                     const std::vector<RelayedReport>& relayed,
                                     std::uint32_t publishers, const std::string& missing_reason)
{
  RelayedVerdict verdict;
  verdict.entries.push_back(publisher_entry(0, own));
  if (plausible_report(own, 0, publishers))
    verdict.lines.push_back(summary_line(0, own));
  for (std::uint32_t id = 1; id < publishers; ++id) {
    const auto found = std::find_if(relayed.begin(), relayed.end(),
                                    [&](const RelayedReport& r) { return r.id == id; });
    const json report = found == relayed.end()
                            ? json(nullptr)
                            : json::parse(found->json, nullptr, /*allow_exceptions=*/false);
    const std::string name = "publisher " + std::to_string(id);
    if (found == relayed.end() || !plausible_report(report, id, publishers)) {
      const std::string why = found == relayed.end()
                                  ? missing_reason
                                  : "its report reached publisher 0 but is not a netprof "
                                    "publisher report of this run";
      verdict.entries.push_back(publisher_entry(id, nullptr));
      verdict.lines.push_back(std::to_string(id) + ": " + why);
      verdict.problems.push_back(name + ": " + why);
      verdict.missing = true;
      continue;
    }
    verdict.entries.push_back(publisher_entry(id, report));
    verdict.lines.push_back(summary_line(id, report));
    if (report["result"]["status"] != "SUCCESS")
      verdict.problems.push_back(name + ": " + failure_of(report["result"]));
  }
  return verdict;
}

} // namespace netprof
