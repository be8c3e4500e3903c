#include "tcp_transport.hpp"

#include "tcp_sockets.hpp"

#include "common/address_plan.hpp"
#include "common/free_ports.hpp"
#include "common/host_name.hpp"
#include "common/ipv4_address.hpp"
#include "common/option_specs.hpp"
#include "stream/stream_endpoint.hpp"
#include "stream/stream_limits.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <string>
#include <vector>

namespace netprof {

namespace {

constexpr const char* flag = "--tcp";

const OptionGroup& tcp_options()
{
  static const OptionGroup group{
      "TCP",
      {transport_common::naming_option(
           "tcp", "host:port",
           "raw TCP, one connection per subscriber, each message length-framed. The "
           "publisher listens at its --tcp (0.0.0.0: every interface); a subscriber "
           "connects to the publisher's address, its only --tcp, or its second after "
           "its own local address (port 0: any). --local-pair takes none (a free "
           "loopback port), one (the publisher's; port 0: netprof picks) or two (the "
           "publisher's, then the subscriber's own). Under --publishers, publisher k "
           "listens at the port given plus k.")
           .repeatable()
           .per_stream(StreamRule::port_offset),
       transport_common::on_off_option(
           "tcp-nodelay",
           "TCP_NODELAY on every connection: on sends each message at once; off lets "
           "Nagle's algorithm hold a small message back until what was sent before is "
           "acknowledged, to coalesce it with others")}};
  return group;
}

struct TcpAddresses {
  sockaddr_in publisher{};
  std::optional<sockaddr_in> own;
};

sockaddr_in parse_port_given(const std::string& value, const char* why)
{
  const sockaddr_in address = transport_common::parse_ipv4_endpoint(value, flag);
  if (address.sin_port == 0) {
    transport_common::throw_bad_address(flag, value, why);
  }
  return address;
}

// Where subscribers on this host reach a publisher listening at `listening`.
sockaddr_in reachable_form(sockaddr_in listening)
{
  if (listening.sin_addr.s_addr == htonl(INADDR_ANY)) {
    listening.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  return listening;
}

EffectiveQos tcp_qos(const EndpointRequest& request)
{
  return qos::always_reliable(request.qos, "tcp",
                              "a TCP connection never drops a message: a full connection pushes "
                              "back on the publisher, which waits (it is reliable and keeps all)",
                              "TCP retransmits and never drops; a reader that lags fills its "
                              "connection's buffers (-q) and the publisher waits");
}

bool no_delay(const OptionValues& values)
{
  return transport_common::switched_on(values, tcp_options()["tcp-nodelay"]);
}

std::vector<std::string> addresses_given(const OptionValues& values)
{
  return values.texts(tcp_options()["tcp"]);
}

TcpAddresses parse_addresses(const std::vector<std::string>& given, Role role)
{
  TcpAddresses addresses;
  if (role == Role::publisher) {
    if (given.size() != 1) {
      throw UsageError(given.empty() ? "a TCP publisher needs the address it listens at: "
                                       "--tcp host:port (0.0.0.0 for every interface)"
                                     : "a TCP publisher takes one --tcp, the address it listens "
                                       "at; its subscribers connect to it");
    }
    addresses.publisher = parse_port_given(
        given[0], "a publisher needs a port other than 0, since its subscribers connect to it "
                  "(only --local-pair picks one itself)");
    return addresses;
  }
  if (given.empty() || given.size() > 2) {
    throw UsageError("a TCP subscriber needs its publisher's address: --tcp host:port (or "
                     "two: its own address, then the publisher's)");
  }
  if (given.size() == 2) {
    addresses.own = transport_common::parse_ipv4_endpoint(given[0], flag);
  }
  addresses.publisher =
      parse_port_given(given.back(), "the publisher's address needs its port, not 0");
  return addresses;
}

LocalPairPlan local_pair_plan(const std::vector<std::string>& given, std::size_t subscribers,
                              std::size_t streams)
{
  if (given.size() > 2 || (given.size() == 2 && subscribers != 1)) {
    throw UsageError("the local pair takes at most two --tcp: the publisher's address, then "
                     "the subscriber's own (or none: a free loopback port)");
  }
  sockaddr_in publisher{};
  publisher.sin_family = AF_INET;
  publisher.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!given.empty()) {
    publisher = transport_common::parse_ipv4_endpoint(given[0], flag);
  }
  if (publisher.sin_port == 0) {
    const in_addr host = reachable_form(publisher).sin_addr;
    publisher.sin_port =
        htons(transport_common::pick_free_ports(SOCK_STREAM, host, 1, streams).front());
  }
  const std::string listen_at = transport_common::to_string(publisher);
  const std::string connect_to = transport_common::to_string(reachable_form(publisher));
  LocalPairPlan arguments{{flag, listen_at}, {}, {}};
  for (std::size_t i = 0; i < subscribers; ++i) {
    if (given.size() == 2) {
      transport_common::parse_ipv4_endpoint(given[1], flag);
      arguments.subscribers.push_back({flag, given[1], flag, connect_to});
    } else {
      arguments.subscribers.push_back({flag, connect_to});
    }
  }
  return arguments;
}

std::unique_ptr<Endpoint> open_tcp(const TcpAddresses& addresses, bool nodelay,
                                   const EndpointRequest& request)
{
  auto sockets = std::make_unique<tcp::TcpSockets>(
      tcp::TcpSettings{addresses.publisher, addresses.own, request.queue_length_bytes, nodelay});
  const std::size_t sendable = stream::framed_sendable(sockets->buffers().granted_send);
  stream::StreamSetup setup{
      .transport = "tcp",
      .role = request.role,
      .framing = stream::Framing::length_prefixed,
      .publisher_address = transport_common::to_string(addresses.publisher),
      .limits = stream::stream_limits(request, sendable, stream::max_framed_message),
      .notes = {nodelay ? "TCP_NODELAY on: each message is sent at once"
                        : "TCP_NODELAY off (--tcp-nodelay off): Nagle's algorithm may hold a "
                          "small message back until earlier ones are acknowledged"},
      .size_hint = "a larger -q raises it, up to 16 MiB",
      .sockets = std::move(sockets)};
  return std::make_unique<stream::StreamEndpoint>(std::move(setup));
}

TransportPlan plan_tcp(const PlanRequest& request)
{
  const bool nodelay = no_delay(request.values);
  const std::vector<std::string> given = addresses_given(request.values);
  return transport_common::plan_pair_or_single(
      request, tcp_qos,
      [&] { return local_pair_plan(given, request.pair_subscribers, request.pair_streams); },
      [&]() -> transport_common::SingleRolePlan {
        const TcpAddresses addresses = parse_addresses(given, request.single_role());
        return {{transport_common::to_string(addresses.publisher)},
                [addresses, nodelay](const EndpointRequest& endpoint) {
                  return open_tcp(addresses, nodelay, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor tcp_transport()
{
  return {.name = "tcp",
          .summary = "raw TCP: --tcp host:port, where the publisher listens",
          .options = tcp_options(),
          .also_reads = {},
          // Each endpoint owns its sockets and buffers; nothing is shared through the process.
          .flags = {.threads = true, .sends_to_one = true},
          .remote_launch = RemoteLaunch{{flag, "{publisher}"}, {flag, "{publisher}"}},
          .plan = plan_tcp};
}

} // namespace netprof
