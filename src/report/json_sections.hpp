#pragma once

// The JSON report's sections, by file: json_environment.cpp (the host, the settings, the
// endpoint and the resources used: what the run ran on and with); json_report.cpp (the result
// and the figures, and the report in order). The key names are a contract: json_report.cpp
// says which.

#include <netprof/report.hpp>

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace netprof::json_sections {

// nlohmann::json would write NaN and infinity as null, silently turning a number field into
// something else; 0 keeps the type and only happens when there was nothing to measure.
inline double finite(double value)
{
  return std::isfinite(value) ? value : 0.0;
}

nlohmann::json host_json(const HostFacts& host);
nlohmann::json scheduler_json(const std::optional<SchedulerLoad>& load);
nlohmann::json settings_json(const RunConfig& config);
nlohmann::json endpoint_json(const EndpointFacts& endpoint);
nlohmann::json usage_json(const std::optional<wire::ProcessUsage>& usage);

} // namespace netprof::json_sections
