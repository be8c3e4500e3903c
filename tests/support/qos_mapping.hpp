#pragma once

// The fixture of every transport's QoS mapping test (transports/<name>/tests/*_qos_mapping_test.cpp
// and tests/unit/cli/qos_mapping_test.cpp, all in unit_cli): a command line parsed as netprof
// parses it, the QoS its transport states for the endpoint it would open, and the refusal a bad
// request gets. Pure logic: no socket is opened, no segment or queue made.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace netprof {

// The four facts a QoS mapping test checks together: how reliable, which history, who decides,
// and how many messages a reader may lag (none where the bound is in bytes or there is none).
// Compared in one EXPECT_EQ, printed by name when it fails.
struct StatedQos {
  Reliability reliability;
  HistoryKind history;
  QosSetBy set_by;
  std::optional<std::uint64_t> depth;

  friend bool operator==(const StatedQos&, const StatedQos&) = default;
};

inline StatedQos stated(const EffectiveQos& qos)
{
  return {qos.reliability, qos.history, qos.set_by, qos.depth};
}

inline void PrintTo(const StatedQos& qos, std::ostream* out)
{
  *out << to_string(qos.reliability) << ", " << to_string(qos.history) << ", set by "
       << to_string(qos.set_by) << ", depth ";
  if (qos.depth)
    *out << *qos.depth;
  else
    *out << "none";
}

class QosMappingTest : public ::testing::Test {
protected:
  QosMappingTest() { register_builtin_transports(m_registry); }

  ParsedCommandLine parse(std::initializer_list<std::string> arguments) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage)
      argv.push_back(argument.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);
  }

  // The QoS the chosen transport states for the endpoint this command line would open.
  EffectiveQos effective(std::initializer_list<std::string> arguments) const
  {
    const ParsedCommandLine parsed = parse(arguments);
    return parsed.plan.qos(parsed.config.role);
  }

  // The four facts the QoS of this command line's endpoint states.
  StatedQos stated(std::initializer_list<std::string> arguments) const
  {
    return stated(effective(arguments));
  }

  static StatedQos stated(const EffectiveQos& qos) { return netprof::stated(qos); }

  std::string refusal(std::initializer_list<std::string> arguments) const
  {
    try {
      parse(arguments);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(accepted)";
  }

  TransportRegistry m_registry;
};

inline bool starts_with(const std::string& text, const std::string& start)
{
  return text.starts_with(start);
}

} // namespace netprof
