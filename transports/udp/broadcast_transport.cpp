#include "broadcast_address.hpp"
#include "datagram_qos.hpp"
#include "free_ports.hpp"
#include "socket_address.hpp"
#include "udp_endpoint.hpp"
#include "udp_sockets.hpp"
#include "udp_transport.hpp"
#include "udp_tuning.hpp"

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
      {OptionSpec("broadcast,b", "addr:port", Text{},
                  "UDP broadcast: every process binds this broadcast address and port and sends "
                  "to it, publisher data and back channel alike. The address must be an "
                  "interface's broadcast address (127.255.255.255 stays on this host) or "
                  "255.255.255.255")
           .passed(PairRoute::neither)}};
  return group;
}

// UDP broadcast: every process binds the broadcast address and port and sends to it, data and
// back channel alike.
class BroadcastTransport final : public Transport {
public:
  const OptionGroup& options() const override { return broadcast_options(); }

  // The options every UDP mode shares are shown in the udp entry's group.
  bool reads_option(const std::string& long_name) const override
  {
    return Transport::reads_option(long_name) || udp::tuning_options().contains(long_name);
  }

  EffectiveQos effective_qos(const EndpointRequest& request) const override
  {
    return udp::datagram_qos(request.qos, "broadcast");
  }

  void validate(Role) const override
  {
    parse();
    udp::parse_tuning(option_values());
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    return std::make_unique<udp::UdpEndpoint>(udp::open_broadcast(parse()),
                                              udp::parse_tuning(option_values()),
                                              request.queue_length_bytes);
  }

  // Every process binds the same address and port.
  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    udp::parse_tuning(option_values()); // a bad value is reported before the children start
    std::vector<std::string> arguments = {"-b"};
    if (address().empty()) {
      arguments.push_back(std::string(loopback_broadcast) + ":" +
                          std::to_string(udp::pick_free_loopback_ports(1).front()));
    } else {
      arguments.push_back(udp::to_string(parse()));
    }
    return {arguments, std::vector(subscribers, arguments), {}};
  }

  // Its datagrams reach every process bound to the address and port, whatever started it.
  bool needs_private_netns() const override { return true; }
  // Each endpoint has sockets of its own, and a thread's reach the same medium as a process's.
  bool allows_threads() const override { return true; }

private:
  std::string address() const
  {
    return option_values().text(broadcast_options()["broadcast"]).value_or("");
  }

  sockaddr_in parse() const
  {
    const std::string value = address();
    if (value.empty()) {
      throw UsageError("broadcast needs its address: -b addr:port, e.g. -b " +
                       std::string(loopback_broadcast) + ":4150");
    }
    return udp::parse_broadcast_address(value);
  }
};

} // namespace

std::unique_ptr<Transport> make_broadcast_transport()
{
  return std::make_unique<BroadcastTransport>();
}

} // namespace netprof
