#include "udp_transport.hpp"
#include "datagram_qos.hpp"

#include "free_ports.hpp"
#include "socket_address.hpp"
#include "udp_endpoint.hpp"
#include "udp_sockets.hpp"
#include "udp_tuning.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"

#include <netprof/errors.hpp>

#include <string>
#include <vector>

namespace netprof {

namespace {

constexpr const char* flag = "-u";

struct UdpAddresses {
  sockaddr_in own{};
  std::vector<sockaddr_in> peers;
};

sockaddr_in parse_peer(const std::string& value)
{
  sockaddr_in peer = udp::parse_ipv4_endpoint(value, flag);
  if (peer.sin_port == 0) {
    throw UsageError(std::string("bad ") + flag + " value '" + value +
                     "': a peer needs a port other than 0");
  }
  return peer;
}

// -u, then every option the UDP modes share: udp is the entry that shows them.
const OptionGroup& unicast_options()
{
  static const OptionGroup group = [] {
    OptionGroup unicast{
        "UDP unicast",
        {transport_common::naming_option(
             "udp,u", "host:port",
             "UDP unicast, repeatable. The first -u is this process's own bind address; each "
             "further -u is a peer it sends to. A subscriber needs the publisher's address; a "
             "publisher also learns subscribers from their hellos. Under --publishers, "
             "publisher k's stream moves every port up by k, on every process.",
             std::nullopt)
             .repeatable()
             .per_stream(StreamRule::port_offset)}};
    const auto& shared = udp::tuning_options().options;
    unicast.options.insert(unicast.options.end(), shared.begin(), shared.end());
    return unicast;
  }();
  return group;
}

// Parsed from the -u values for a role.
UdpAddresses parse_addresses(const std::vector<std::string>& given, Role role)
{
  if (given.empty() && role == Role::subscriber) {
    throw UsageError("a subscriber needs its own address: -u own_host:port, then -u "
                     "publisher_host:port (or none: its publisher, given this address, "
                     "contacts it)");
  }
  if (given.empty()) {
    throw UsageError("a publisher needs its own address: -u own_host:port "
                     "(then -u per subscriber, or none: it learns them from their hellos)");
  }
  UdpAddresses addresses;
  addresses.own = udp::parse_ipv4_endpoint(given[0], flag);
  // MADARA's form: a subscriber named only by itself waits for the publisher it was given to,
  // which must then know where to find it.
  if (role == Role::subscriber && given.size() == 1 && ntohs(addresses.own.sin_port) == 0) {
    throw UsageError("bad -u value '" + given[0] +
                     "': a subscriber given only its own address waits for its publisher "
                     "(started with -u this address) to contact it, so it needs a port "
                     "other than 0; or give the publisher's address too");
  }
  // Subscribers send their hellos to the address they were given, and none can be given
  // port 0, so a publisher bound to a port the system picks would wait out --wait alone.
  // (The local pair gives its publisher a real port; a subscriber may use 0: the publisher
  // learns its port from its hello.)
  if (role == Role::publisher && addresses.own.sin_port == 0) {
    throw UsageError(std::string("bad ") + flag + " value '" + given[0] +
                     "': a publisher needs a port other than 0, since its subscribers send "
                     "to it (only a subscriber's own port may be 0)");
  }
  for (std::size_t i = 1; i < given.size(); ++i) {
    addresses.peers.push_back(parse_peer(given[i]));
  }
  if (addresses.peers.size() > udp::PeerTable::capacity) {
    throw UsageError("too many -u peers: " + std::to_string(addresses.peers.size()) + " (at most " +
                     std::to_string(udp::PeerTable::capacity) + ")");
  }
  return addresses;
}

LocalPairPlan local_pair_plan(const std::vector<std::string>& given, std::size_t subscribers,
                              std::size_t streams)
{
  if (given.empty()) {
    const std::vector<std::uint16_t> ports =
        udp::pick_free_loopback_ports(subscribers + 1, streams);
    const std::string publisher = "127.0.0.1:" + std::to_string(ports[0]);
    LocalPairPlan arguments{{"-u", publisher}, {}, {}};
    for (std::size_t i = 1; i <= subscribers; ++i) {
      arguments.subscribers.push_back(
          {"-u", "127.0.0.1:" + std::to_string(ports[i]), "-u", publisher});
    }
    return arguments;
  }
  if (given.size() == 2 && subscribers == 1) {
    // Each is the other's peer, so both must be complete addresses with a real port.
    parse_peer(given[0]);
    parse_peer(given[1]);
    return {{"-u", given[0], "-u", given[1]}, {{"-u", given[1], "-u", given[0]}}, {}};
  }
  if (subscribers > 1) {
    throw UsageError("a local group (--subscribers " + std::to_string(subscribers) +
                     ") picks a free loopback port for each process: give no -u");
  }
  throw UsageError("the local pair takes no -u (it picks two free loopback ports) or exactly "
                   "two: -u publisher_host:port -u subscriber_host:port");
}

TransportPlan plan_udp(const PlanRequest& request)
{
  const udp::UdpTuning tuning = udp::parse_tuning(request.values);
  const std::vector<std::string> given = request.values.texts(unicast_options()["udp"]);
  return transport_common::plan_pair_or_single(
      request,
      [](const EndpointRequest& endpoint) { return udp::datagram_qos(endpoint.qos, "udp"); },
      [&] { return local_pair_plan(given, request.pair_subscribers, request.pair_streams); },
      [&]() -> transport_common::SingleRolePlan {
        const UdpAddresses addresses = parse_addresses(given, request.single_role());
        return {given, [addresses, tuning](const EndpointRequest& endpoint) {
                  return std::make_unique<udp::UdpEndpoint>(
                      udp::open_unicast(addresses.own, addresses.peers, endpoint.role), tuning,
                      endpoint.queue_length_bytes);
                }};
      });
}

} // namespace

TransportDescriptor udp_transport()
{
  RemoteLaunch across_hosts{{flag, "{own}"}, {flag, "{own}", flag, "{publisher}"}};
  // The options every UDP mode shares are shown here, so only -u selects udp (transport_choice
  // lets an option that several transports read select none of them).
  return {.name = "udp",
          .summary = "UDP unicast: -u own_host:port, then one -u per peer",
          .options = unicast_options(),
          .also_reads = {},
          .flags = {.threads = true, .sends_to_one = true},
          .remote_launch = std::move(across_hosts),
          .plan = plan_udp};
}

} // namespace netprof
