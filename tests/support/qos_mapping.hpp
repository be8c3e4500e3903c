#pragma once

// The fixture of every transport's QoS mapping test (transports/<name>/tests/*_qos_mapping_test.cpp
// and tests/unit/cli/qos_mapping_test.cpp, all in unit_cli): a command line parsed as netprof
// parses it, the QoS its transport states for the endpoint it would open, and the refusal a bad
// request gets. Pure logic: no socket is opened, no segment or queue made.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace netprof {

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
