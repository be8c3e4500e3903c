#include "core/roles/publisher_streams.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace netprof {

namespace {

void add_named(std::vector<std::string>& into, const std::vector<std::string>& lines,
               std::uint32_t publisher)
{
  for (const std::string& line : lines)
    into.push_back("publisher " + std::to_string(publisher) + ": " + line);
}

// Interrupted over a runtime error over a failed test over a pass: the exit statuses' order.
ExitStatus graver(ExitStatus a, ExitStatus b)
{
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

PublisherStream stream_of(std::uint32_t publisher, const RunReport& report)
{
  PublisherStream stream;
  stream.publisher = publisher;
  if (report.self)
    stream.figures = *report.self;
  else
    stream.figures.id = report.config.id;
  stream.end_received = report.end_received;
  stream.ended_by = report.ended_by;
  return stream;
}

} // namespace

RoleResult merged_publisher_streams(std::vector<RoleResult> streams)
{
  RoleResult merged = std::move(streams.front());
  RunReport& report = merged.report;
  report.per_publisher.push_back(stream_of(0, report));
  std::vector<std::string> problems, warnings;
  add_named(problems, report.problems, 0);
  add_named(warnings, report.warnings, 0);
  report.problems = std::move(problems);
  report.warnings = std::move(warnings);
  for (std::uint32_t publisher = 1; publisher < streams.size(); ++publisher) {
    const RoleResult& other = streams[publisher];
    report.per_publisher.push_back(stream_of(publisher, other.report));
    add_named(report.problems, other.report.problems, publisher);
    add_named(report.warnings, other.report.warnings, publisher);
    report.success = report.success && other.report.success;
    report.interrupted = report.interrupted || other.report.interrupted;
    report.rejected += other.report.rejected;
    report.foreign_run_messages += other.report.foreign_run_messages;
    merged.status = graver(merged.status, other.status);
  }
  return merged;
}

} // namespace netprof
