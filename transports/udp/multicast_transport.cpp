#include "datagram_qos.hpp"
#include "multicast_options.hpp"
#include "udp_endpoint.hpp"
#include "udp_sockets.hpp"
#include "udp_transport.hpp"
#include "udp_tuning.hpp"

#include <string>
#include <vector>

namespace netprof {

namespace {

// UDP multicast, MADARA's default transport: publisher and subscribers all join one group and
// port; data goes to the group and so does the back channel. Without -m it uses MADARA's group,
// so it can serve as the transport when none is given.
class MulticastTransport final : public Transport {
public:
  // Any --mc-* option selects multicast (the default selected()), so `--mc-ttl 0` alone still
  // means MADARA's group; only -m names it, so -b with --mc-ttl is broadcast given an option
  // it does not read, not two transports.
  const OptionGroup& options() const override { return udp::multicast_options(); }

  // The options every UDP mode shares are shown in the udp entry's group.
  bool reads_option(const std::string& long_name) const override
  {
    return Transport::reads_option(long_name) || udp::tuning_options().contains(long_name);
  }

  // The roles need nothing different: everyone joins the same group.
  EffectiveQos effective_qos(const EndpointRequest& request) const override
  {
    return udp::datagram_qos(request.qos, "multicast");
  }

  void validate(Role) const override
  {
    udp::parse_multicast(option_values());
    udp::parse_tuning(option_values());
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    return std::make_unique<udp::UdpEndpoint>(
        udp::open_multicast(udp::parse_multicast(option_values())),
        udp::parse_tuning(option_values()), request.queue_length_bytes);
  }

  // Every process joins the same group.
  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    udp::parse_tuning(option_values()); // a bad value is reported before the children start
    const std::vector<std::string> arguments = udp::multicast_pair_arguments(option_values());
    return {arguments, std::vector(subscribers, arguments), {}};
  }

  // Its datagrams reach every process that joined the group on any interface they share.
  bool needs_private_netns() const override { return true; }
  // Each endpoint has sockets of its own, and a thread's reach the same medium as a process's.
  bool allows_threads() const override { return true; }
};

} // namespace

std::unique_ptr<Transport> make_multicast_transport()
{
  return std::make_unique<MulticastTransport>();
}

} // namespace netprof
