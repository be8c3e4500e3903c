#include "transport_list.hpp"

#include <netprof/wire.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <vector>

namespace netprof::cli {

namespace {

using Descriptors = std::vector<TransportDescriptor>;

// The long names of every transport option this one reads: its own, then those it shares with
// others, each once.
std::vector<std::string> options_read(const TransportDescriptor& transport, const Descriptors& all)
{
  std::vector<const OptionGroup*> groups = {&transport.options};
  for (const auto& any : all) {
    groups.push_back(&any.options);
  }
  std::vector<std::string> names;
  for (const OptionGroup* group : groups) {
    for (const OptionSpec& spec : group->options) {
      const std::string& name = spec.long_name;
      if (reads_option(transport, name) &&
          std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

LocalPairPlan local_pair_of(const TransportDescriptor& transport, const OptionValues& given,
                            std::size_t subscribers)
{
  PlanRequest request;
  request.values = given;
  request.role = PlanRole::local_pair;
  request.pair_subscribers = subscribers;
  return transport.plan(request).local_pair;
}

nlohmann::ordered_json remote_launch(const TransportDescriptor& transport)
{
  if (!transport.remote_launch)
    return nullptr;
  return {{"publisher", transport.remote_launch->publisher},
          {"subscriber", transport.remote_launch->subscriber}};
}

// The option that names the transport, and whether it may stand alone (`--local-pair --tcp`
// picks loopback addresses), so scripts need not keep a list of such transports.
nlohmann::ordered_json naming_option(const TransportDescriptor& transport)
{
  const OptionSpec& naming = transport.options.options.front();
  return {{"option", "--" + naming.long_name},
          {"value_optional", naming.implicit_text.has_value()}};
}

nlohmann::ordered_json described(const TransportDescriptor& transport, const Descriptors& all,
                                 const OptionValues& given, std::size_t subscribers)
{
  const LocalPairArguments pair = local_pair_of(transport, given, 1).pair();
  const LocalPairPlan loopback = local_pair_of(transport, given, subscribers);
  const TransportFlags& flags = transport.flags;
  return {{"name", transport.name},
          {"summary", transport.summary},
          {"named_by", naming_option(transport)},
          {"options", options_read(transport, all)},
          {"local_pair", {{"publisher", pair.publisher}, {"subscriber", pair.subscriber}}},
          {"loopback",
           {{"publisher", loopback.publisher},
            {"subscribers", loopback.subscribers},
            {"files", loopback.files}}},
          {"needs_private_netns", flags.private_netns},
          {"allows_threads", flags.threads},
          {"flags",
           {{"threads", flags.threads},
            {"private_netns", flags.private_netns},
            {"pair_service", flags.pair_service},
            {"host_local", flags.host_local},
            {"typed_payloads", flags.typed_payloads},
            {"sends_to_one", flags.sends_to_one},
            {"deals_in_turn", flags.deals_in_turn}}},
          {"remote_launch", remote_launch(transport)}};
}

} // namespace

std::string transport_list(const TransportRegistry& registry)
{
  std::string text;
  for (const TransportDescriptor& transport : registry.entries()) {
    text += transport.name + "\t" + transport.summary + "\n";
  }
  return text;
}

std::string transport_list_json(const TransportRegistry& registry, const OptionValues& given,
                                std::size_t subscribers)
{
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TransportDescriptor& transport : registry.entries()) {
    list.push_back(described(transport, registry.entries(), given, subscribers));
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
