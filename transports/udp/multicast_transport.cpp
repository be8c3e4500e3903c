#include "datagram_qos.hpp"
#include "multicast_options.hpp"
#include "socket_address.hpp"
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
// so it can serve as the transport when none is given. The roles need nothing different.
TransportPlan plan_multicast(const PlanRequest& request)
{
  const udp::UdpTuning tuning = udp::parse_tuning(request.values);
  TransportPlan plan;
  plan_qos(plan, request, [](const EndpointRequest& endpoint) {
    return udp::datagram_qos(endpoint.qos, "multicast");
  });
  if (request.role == PlanRole::local_pair) {
    // Every process joins the same group (each stream on a port of its own: a block of free
    // ones when netprof picks).
    const std::vector<std::string> arguments =
        udp::multicast_pair_arguments(request.values, request.pair_streams);
    plan.local_pair = {arguments, std::vector(request.pair_subscribers, arguments), {}};
    plan.addresses = {arguments.at(1)};
    return plan;
  }
  const udp::MulticastSettings settings = udp::parse_multicast(request.values);
  plan.addresses = {udp::to_string(settings.group)};
  plan.opener = [settings, tuning](const EndpointRequest& endpoint) {
    return std::make_unique<udp::UdpEndpoint>(udp::open_multicast(settings), tuning,
                                              endpoint.queue_length_bytes);
  };
  return plan;
}

std::vector<std::string> multicast_across_hosts()
{
  const std::string group = udp::default_multicast_group;
  return {"-m", group.substr(0, group.rfind(':') + 1) + "{port}", "--mc-interface", "{address}"};
}

} // namespace

// Any --mc-* option selects multicast, so `--mc-ttl 0` alone still means MADARA's group; only
// -m names it, so -b with --mc-ttl is broadcast given an option it does not read, not two
// transports.
TransportDescriptor multicast_transport()
{
  return {.name = "multicast",
          .summary = "UDP multicast: -m group:port (default 239.255.0.1:4150)",
          .options = udp::multicast_options(),
          .also_reads = udp::tuning_option_names(),
          // Its datagrams reach every process that joined the group on any interface they
          // share; each endpoint has sockets of its own, and a thread's reach the same medium
          // as a process's.
          .flags = {.threads = true, .private_netns = true},
          // MADARA's group on the run's port, joined and sent on the interface that has the
          // host's address in the hosts file (the one facing the other hosts), whatever the
          // host's routes say.
          .remote_launch = RemoteLaunch{multicast_across_hosts(), multicast_across_hosts()},
          .plan = plan_multicast};
}

} // namespace netprof
