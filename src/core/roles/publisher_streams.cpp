#include "core/roles/publisher_streams.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace netprof {

namespace {

// What tells the streams apart: the publisher, the topic, or both.
std::string label(const StreamName& name, bool publishers_vary, bool topics_vary)
{
  std::string text;
  if (publishers_vary || !topics_vary)
    text = "publisher " + std::to_string(name.publisher);
  if (topics_vary)
    text += (text.empty() ? "" : ", ") + std::string("topic ") + std::to_string(name.topic);
  return text;
}

void add_named(std::vector<std::string>& into, const std::vector<std::string>& lines,
               const std::string& stream)
{
  for (const std::string& line : lines)
    into.push_back(stream + ": " + line);
}

// Interrupted over a runtime error over a failed test over a pass: the exit statuses' order.
ExitStatus graver(ExitStatus a, ExitStatus b)
{
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

PublisherStream received_stream(const StreamName& name, const RunReport& report)
{
  PublisherStream stream;
  stream.publisher = name.publisher;
  stream.topic = name.topic;
  if (report.self)
    stream.figures = *report.self;
  else
    stream.figures.id = report.config.id;
  stream.end_received = report.end_received;
  stream.ended_by = report.ended_by;
  return stream;
}

TopicStream published_stream(const StreamName& name, const RunReport& report)
{
  TopicStream stream;
  stream.topic = name.topic;
  stream.success = report.success;
  stream.messages_sent = report.messages_sent;
  stream.probes_sent = report.probes_sent;
  stream.echoes_received = report.echoes_received;
  stream.rtt = report.rtt;
  stream.subscribers = report.subscribers;
  return stream;
}

} // namespace

RoleResult merged_streams(std::vector<RoleResult> results, const std::vector<StreamName>& names)
{
  const auto varies = [&](auto member) {
    return std::any_of(names.begin(), names.end(),
                       [&](const StreamName& name) { return name.*member != names[0].*member; });
  };
  const bool publishers_vary = varies(&StreamName::publisher);
  const bool topics_vary = varies(&StreamName::topic);
  RoleResult merged = std::move(results.front());
  RunReport& report = merged.report;
  std::vector<std::string> problems, warnings;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RoleResult& stream = i == 0 ? merged : results[i];
    const std::string name = label(names[i], publishers_vary, topics_vary);
    add_named(problems, stream.report.problems, name);
    add_named(warnings, stream.report.warnings, name);
    if (report.config.role == Role::publisher)
      report.per_topic.push_back(published_stream(names[i], stream.report));
    else
      report.per_publisher.push_back(received_stream(names[i], stream.report));
    if (i == 0)
      continue;
    report.success = report.success && stream.report.success;
    report.interrupted = report.interrupted || stream.report.interrupted;
    report.rejected += stream.report.rejected;
    report.foreign_run_messages += stream.report.foreign_run_messages;
    merged.status = graver(merged.status, stream.status);
  }
  report.problems = std::move(problems);
  report.warnings = std::move(warnings);
  return merged;
}

} // namespace netprof
