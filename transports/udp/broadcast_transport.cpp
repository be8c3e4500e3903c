#include "broadcast_address.hpp"
#include "datagram_qos.hpp"
#include "free_ports.hpp"
#include "socket_address.hpp"
#include "udp_endpoint.hpp"
#include "udp_sockets.hpp"
#include "udp_transport.hpp"
#include "udp_tuning.hpp"

#include "common/option_specs.hpp"

#include <netprof/errors.hpp>

#include <string>
#include <vector>

namespace netprof {

namespace {

// The local pair's address when none is given: lo's broadcast address keeps the traffic on
// this host.
constexpr const char* loopback_broadcast = "127.255.255.255";

const OptionGroup& broadcast_options()
{
  static const OptionGroup group{
      "UDP broadcast",
      {transport_common::naming_option(
           "broadcast,b", "addr:port",
           "UDP broadcast: every process binds this broadcast address and port and sends to it, "
           "publisher data and back channel alike. The address must be an interface's broadcast "
           "address (127.255.255.255 stays on this host) or 255.255.255.255. Under --publishers "
           "and --topics stream k takes port + k",
           std::nullopt)
           .per_stream(StreamRule::port_offset),
       OptionSpec("bc-interface", "ADDR|NAME", Text{},
                  "the interface to broadcast on, by IPv4 address or name: its broadcast address "
                  "is the one bound and sent to, so -b gives only the port (-b 4150); what the "
                  "multi-host launcher gives each host (its address in the hosts file)")
           .passed(PairRoute::neither)}};
  return group;
}

// -b, read through --bc-interface when it is given (the pair passes on the address it found).
sockaddr_in parse_address(const std::string& value, const std::string& interface)
{
  if (value.empty()) {
    throw UsageError("broadcast needs its address: -b addr:port, e.g. -b " +
                     std::string(loopback_broadcast) + ":4150" +
                     (interface.empty() ? "" : ", or its port with --bc-interface: -b 4150"));
  }
  return interface.empty() ? udp::parse_broadcast_address(value)
                           : udp::interface_broadcast_address(value, interface);
}

// Every process binds the same address and port.
std::vector<std::string> pair_arguments(const std::string& given, const std::string& interface,
                                        std::size_t streams)
{
  std::vector<std::string> arguments = {"-b"};
  if (given.empty() && interface.empty()) {
    arguments.push_back(std::string(loopback_broadcast) + ":" +
                        std::to_string(udp::pick_free_loopback_ports(1, streams).front()));
  } else {
    arguments.push_back(udp::to_string(parse_address(given, interface)));
  }
  return arguments;
}

// UDP broadcast: every process binds the broadcast address and port and sends to it, data and
// back channel alike.
TransportPlan plan_broadcast(const PlanRequest& request)
{
  const udp::UdpTuning tuning = udp::parse_tuning(request.values);
  const std::string given = request.values.text(broadcast_options()["broadcast"]).value_or("");
  const std::string interface =
      request.values.text(broadcast_options()["bc-interface"]).value_or("");
  TransportPlan plan;
  plan_qos(plan, request, [](const EndpointRequest& endpoint) {
    return udp::datagram_qos(endpoint.qos, "broadcast");
  });
  if (request.role == PlanRole::local_pair) {
    const std::vector<std::string> arguments =
        pair_arguments(given, interface, request.pair_streams);
    plan.local_pair = {arguments, std::vector(request.pair_subscribers, arguments), {}};
    plan.addresses = {arguments.at(1)};
    return plan;
  }
  const sockaddr_in address = parse_address(given, interface);
  plan.addresses = {udp::to_string(address)};
  plan.opener = [address, tuning](const EndpointRequest& endpoint) {
    return std::make_unique<udp::UdpEndpoint>(udp::open_broadcast(address), tuning,
                                              endpoint.queue_length_bytes);
  };
  return plan;
}

} // namespace

TransportDescriptor broadcast_transport()
{
  return {.name = "broadcast",
          .summary = "UDP broadcast: -b broadcast_address:port",
          .options = broadcast_options(),
          .also_reads = udp::tuning_option_names(),
          // Its datagrams reach every process bound to the address and port, whatever started
          // it; each endpoint has sockets of its own.
          .flags = {.threads = true, .private_netns = true},
          // One port for every host, on the broadcast address of the interface that has the
          // host's address in the hosts file (the one facing the other hosts).
          .remote_launch = RemoteLaunch{{"-b", "{port}", "--bc-interface", "{address}"},
                                        {"-b", "{port}", "--bc-interface", "{address}"}},
          .plan = plan_broadcast};
}

} // namespace netprof
