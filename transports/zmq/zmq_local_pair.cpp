#include "zmq_local_pair.hpp"

#include "zmq_limits.hpp"

#include <netprof/errors.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace netprof::zeromq {

namespace {

// The endpoint a subscriber connects to, for one the publisher binds.
std::string connect_form(const Address& bound)
{
  if (bound.scheme == Scheme::tcp && bound.host == "*") {
    return "tcp://127.0.0.1:" + bound.port;
  }
  return bound.text;
}

// "publisher", then "subscriber" (or "subscriber-1", "subscriber-2"... for several): in the
// names of the ipc paths netprof picks.
std::string role_name(std::size_t index, std::size_t count)
{
  if (index == 0) {
    return "publisher";
  }
  return count == 2 ? "subscriber" : "subscriber-" + std::to_string(index);
}

// A subscriber's own endpoint when the user gave only the publisher's: the same scheme, a
// free port on the same host, a fresh ipc path, or the publisher's inproc name with the
// role's after it.
Address same_kind(const Address& publisher, const std::string& role)
{
  if (publisher.scheme == Scheme::inproc) {
    return parse_address(publisher.text + "-" + role, Use::bind, Inproc::allowed);
  }
  if (publisher.scheme == Scheme::ipc) {
    const bool abstract = !publisher.path.empty() && publisher.path.front() == '@';
    return parse_address(abstract ? publisher.text + "-" + role : "ipc://*", Use::bind);
  }
  const std::string host = publisher.host == "*" ? "127.0.0.1" : publisher.host;
  return parse_address("tcp://" + (publisher.ipv6 ? "[" + host + "]" : host) + ":*", Use::bind);
}

// Each process's own endpoint, the publisher's first, ports and paths maybe still open: the
// ones given (two only for one subscriber), else tcp on loopback; a subscriber's is of the
// publisher's kind.
std::vector<Address> wanted_endpoints(const LocalPairRequest& request)
{
  const std::vector<std::string>& given = request.endpoints;
  if (given.size() > 2 || (given.size() == 2 && request.subscribers != 1)) {
    throw UsageError("the local pair takes at most two --zmq: the publisher's own endpoint, "
                     "then the subscriber's (or none: tcp on free loopback ports)");
  }
  std::vector<Address> wanted;
  for (const std::string& endpoint : given) {
    wanted.push_back(parse_address(endpoint, Use::bind, request.inproc));
  }
  if (wanted.empty()) {
    wanted.push_back(parse_address("tcp://127.0.0.1:*", Use::bind));
  }
  check_no_curve_over_inproc(request.curve_given, wanted);
  while (wanted.size() < request.subscribers + 1) {
    wanted.push_back(same_kind(wanted[0], role_name(wanted.size(), request.subscribers + 1)));
  }
  return wanted;
}

// The bound endpoints with every port or path left open made definite, so that the
// subscribers can connect to the publisher's. Free ports on one host are picked together, so
// they differ from each other and from any port given.
std::vector<std::string> concrete(const std::vector<Address>& pair, std::size_t streams)
{
  // Each stream's own port and the one after it (pushpull's data).
  const std::size_t ports_taken = streams * ports_per_stream;
  std::vector<std::string> result;
  for (std::size_t i = 0; i < pair.size(); ++i) {
    const Address& address = pair[i];
    if (!address.wildcard) {
      result.push_back(address.text);
    } else if (address.scheme == Scheme::ipc) {
      result.push_back("ipc://" + temporary_ipc_path(role_name(i, pair.size())));
    } else if (address.ipv6) {
      throw UsageError("bad --zmq value '" + address.text +
                       "': the local pair picks free ports on IPv4 only; give the port");
    } else {
      std::vector<std::uint16_t> ports =
          pick_free_tcp_ports(address.host, pair.size() + 2, ports_taken);
      // Neither a port given nor one picked before may fall in this one's streams, nor it in
      // theirs.
      const auto overlaps = [&](std::uint16_t port, unsigned long other) {
        return port < other + ports_taken && other < port + ports_taken;
      };
      for (const Address& other : pair) {
        if (!other.wildcard && other.scheme == Scheme::tcp) {
          std::erase_if(ports,
                        [&](std::uint16_t port) { return overlaps(port, std::stoul(other.port)); });
        }
      }
      for (const std::string& taken : result) {
        const std::string prefix = "tcp://" + address.host + ":";
        if (!taken.starts_with(prefix))
          continue;
        const unsigned long taken_port = std::stoul(taken.substr(prefix.size()));
        std::erase_if(ports, [&](std::uint16_t port) { return overlaps(port, taken_port); });
      }
      if (ports.empty())
        throw TransportError("cannot pick free ports on " + address.host +
                             " for every stream of the local pair");
      result.push_back("tcp://" + address.host + ":" + std::to_string(ports.front()));
    }
  }
  return result;
}

} // namespace

LocalPairPlan local_pair_plan(const LocalPairRequest& request)
{
  // The children inherit this process's limits: refuse once, here, rather than in each of
  // them (picking ports takes descriptors too). Each child checks again with its queues.
  check_resource_limits({request.io_threads, request.subscribers, 0});
  const std::vector<std::string> bound = concrete(wanted_endpoints(request), request.streams);
  const Address publisher_own = parse_address(bound[0], Use::bind, request.inproc);
  if (request.pattern == Pattern::pushpull)
    deal_address(publisher_own); // refused here, before any child, when there is no room
  const std::string publisher = connect_form(publisher_own);
  LocalPairPlan arguments{{"--zmq", bound[0]}, {}, {}};
  for (std::size_t i = 1; i < bound.size(); ++i) {
    arguments.subscribers.push_back({"--zmq", bound[i], "--zmq", publisher});
  }
  for (const std::string& endpoint : bound) {
    if (const Address address = parse_address(endpoint, Use::bind, request.inproc);
        address.is_ipc_file()) {
      arguments.files.push_back(address.path);
      if (request.pattern == Pattern::pushpull) // only the publisher's is bound, but any may be
        arguments.files.push_back(deal_address(address).path);
    }
  }
  return arguments;
}

} // namespace netprof::zeromq
