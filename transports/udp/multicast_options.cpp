#include "multicast_options.hpp"

#include "free_ports.hpp"
#include "interfaces.hpp"
#include "socket_address.hpp"

#include "common/option_specs.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>

namespace netprof::udp {

const OptionGroup& multicast_options()
{
  static const OptionGroup group{
      "UDP multicast",
      {transport_common::naming_option(
           "multicast,m", "group:port",
           "UDP multicast: every process joins the group and binds its port; publisher data and "
           "the subscribers' back channel both go to the group. The group must be in "
           "224.0.0.0/4; default 239.255.0.1:4150 (MADARA's). Under --publishers and --topics "
           "stream k takes the group's port + k",
           std::nullopt)
           .per_stream(StreamRule::port_offset),
       OptionSpec("mc-ttl", "N", WholeNumber{0, 255},
                  "multicast TTL, 0 to 255: 0 keeps datagrams on this host, 1 on the local "
                  "network")
           .with_default("1"),
       transport_common::on_off_option(
           "mc-loopback",
           "also deliver to processes on this host (needed when they all run on one host)"),
       OptionSpec("mc-interface", "ADDR|NAME", Text{},
                  "interface to send and join on, by IPv4 address or name; default: the one the "
                  "route to the group picks (on loopback that needs: ip route add 224.0.0.0/4 "
                  "dev lo)")}};
  return group;
}

bool group_given(const OptionValues& values)
{
  const auto group = values.text(multicast_options()["multicast"]);
  return group && !group->empty();
}

MulticastSettings parse_multicast(const OptionValues& values)
{
  const OptionGroup& options = multicast_options();
  const std::string value = group_given(values) ? *values.text(options["multicast"])
                                                : std::string(default_multicast_group);
  MulticastSettings settings;
  settings.group = parse_ipv4_endpoint(value, "-m");
  if (!IN_MULTICAST(ntohl(settings.group.sin_addr.s_addr))) {
    throw UsageError("bad -m value '" + value + "': " + to_string(settings.group.sin_addr) +
                     " is not a multicast group (224.0.0.0 to 239.255.255.255)");
  }
  if (settings.group.sin_port == 0) {
    throw UsageError("bad -m value '" + value +
                     "': the group needs a port other than 0 (every process binds the same one)");
  }
  settings.ttl = static_cast<int>(*values.whole_number(options["mc-ttl"]));
  settings.loopback = transport_common::switched_on(values, options["mc-loopback"]);
  if (const auto interface = values.text(options["mc-interface"]);
      interface && !interface->empty()) {
    const Ipv4Interface found = find_ipv4_interface(*interface, "--mc-interface");
    settings.interface = MulticastInterface{found.name, found.address, found.index};
  }
  return settings;
}

std::vector<std::string> multicast_pair_arguments(const OptionValues& values, std::size_t streams)
{
  const MulticastSettings settings = parse_multicast(values);
  if (group_given(values)) {
    return {"-m", to_string(settings.group)};
  }
  // MADARA's group on a port nobody uses, sent and joined on lo: the pair's traffic stays on
  // this host and away from any real MADARA traffic on the default port.
  const std::string group = default_multicast_group;
  std::vector<std::string> arguments = {
      "-m", group.substr(0, group.rfind(':') + 1) +
                std::to_string(pick_free_loopback_ports(1, streams).front())};
  if (!values.given("mc-ttl")) {
    arguments.insert(arguments.end(), {"--mc-ttl", "0"});
  }
  if (!values.given("mc-interface")) {
    arguments.insert(arguments.end(), {"--mc-interface", "127.0.0.1"});
  }
  return arguments;
}

} // namespace netprof::udp
