#include "core/process/publisher_reports.hpp"

#include "core/process/file_replacement.hpp"

#include <netprof/errors.hpp>

#include <nlohmann/json.hpp>

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

} // namespace netprof
