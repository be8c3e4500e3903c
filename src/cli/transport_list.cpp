#include "transport_list.hpp"

#include <netprof/wire.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <vector>

namespace netprof::cli {

namespace {

// The long names of every transport option this one reads: its own, then those it shares with
// others, each once.
std::vector<std::string> options_read(const Transport& transport,
                                      const std::vector<std::unique_ptr<Transport>>& all)
{
  std::vector<const OptionGroup*> groups = {&transport.options()};
  for (const auto& any : all) {
    groups.push_back(&any->options());
  }
  std::vector<std::string> names;
  for (const OptionGroup* group : groups) {
    for (const OptionSpec& spec : group->options) {
      const std::string& name = spec.long_name;
      if (transport.reads_option(name) &&
          std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

} // namespace

std::string transport_list(const TransportRegistry& registry)
{
  std::string text;
  for (const TransportEntry& entry : registry.entries()) {
    text += entry.name + "\t" + entry.summary + "\n";
  }
  return text;
}

std::string transport_list_json(const TransportRegistry& registry, const OptionValues& given,
                                std::size_t subscribers)
{
  std::vector<std::unique_ptr<Transport>> transports;
  for (const TransportEntry& entry : registry.entries()) {
    transports.push_back(entry.make());
    transports.back()->set_option_values(given);
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const Transport& transport = *transports[i];
    const LocalPairArguments pair = transport.local_pair_arguments();
    const Transport::LoopbackArguments loopback = transport.loopback_arguments(subscribers);
    list.push_back(
        {{"name", registry.entries()[i].name},
         {"summary", registry.entries()[i].summary},
         {"options", options_read(transport, transports)},
         {"local_pair", {{"publisher", pair.publisher}, {"subscriber", pair.subscriber}}},
         {"loopback",
          {{"publisher", loopback.publisher},
           {"subscribers", loopback.subscribers},
           {"files", loopback.files}}},
         {"needs_private_netns", transport.needs_private_netns()},
         {"allows_threads", transport.allows_threads()}});
  }
  const nlohmann::ordered_json document = {
      {"schema_version", 1},
      {"version", NETPROF_VERSION},
      {"wire_header_bytes", wire::header_size},
      // What a subscriber sends back for each probe.
      {"wire_echo_bytes", wire::header_size + wire::echo_stamps_size},
      {"transports", list}};
  return document.dump(2) + "\n";
}

} // namespace netprof::cli
