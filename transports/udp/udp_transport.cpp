#include "udp_transport.hpp"

#include "socket_address.hpp"
#include "udp_endpoint.hpp"

#include <netprof/errors.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <vector>

namespace netprof {

namespace {

namespace po = boost::program_options;

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

// Binds 127.0.0.1:0 so the kernel picks a free port. The sockets stay open until both ports
// are known, so the two differ; they are closed before the children bind, a small race that
// a port in use would report clearly ("cannot bind UDP ...").
std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count)
{
  std::vector<int> sockets;
  std::vector<std::uint16_t> ports;
  const auto close_all = [&sockets] {
    for (const int fd : sockets) {
      close(fd);
    }
  };
  for (std::size_t i = 0; i < count; ++i) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
      sockets.push_back(fd);
    }
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      const int error = errno;
      close_all();
      throw TransportError("cannot pick a free loopback UDP port: " +
                           std::generic_category().message(error));
    }
    ports.push_back(ntohs(address.sin_port));
  }
  close_all();
  return ports;
}

class UdpTransport final : public Transport {
public:
  UdpTransport() : m_options("UDP unicast")
  {
    m_options.add_options()(
        "udp,u",
        po::value<std::vector<std::string>>(&m_addresses)->composing()->value_name("host:port"),
        "UDP unicast, repeatable. The first -u is this process's own bind address; each further "
        "-u is a peer it sends to. A subscriber needs the publisher's address; a publisher also "
        "learns subscribers from their hellos.");
  }

  UdpTransport(const UdpTransport&) = delete; // m_options points at m_addresses
  UdpTransport& operator=(const UdpTransport&) = delete;

  po::options_description& options() override { return m_options; }

  bool selected(const po::variables_map& given) const override { return given.count("udp") > 0; }

  void validate(Role role) const override { parse(role); }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    const UdpAddresses addresses = parse(request.role);
    return std::make_unique<udp::UdpEndpoint>(addresses.own, addresses.peers,
                                              request.queue_length_bytes);
  }

  LocalPairArguments local_pair_arguments() const override
  {
    if (m_addresses.empty()) {
      const std::vector<std::uint16_t> ports = pick_free_loopback_ports(2);
      const std::string publisher = "127.0.0.1:" + std::to_string(ports[0]);
      const std::string subscriber = "127.0.0.1:" + std::to_string(ports[1]);
      return {{"-u", publisher}, {"-u", subscriber, "-u", publisher}};
    }
    if (m_addresses.size() == 2) {
      // Each is the other's peer, so both must be complete addresses with a real port.
      parse_peer(m_addresses[0]);
      parse_peer(m_addresses[1]);
      return {{"-u", m_addresses[0], "-u", m_addresses[1]},
              {"-u", m_addresses[1], "-u", m_addresses[0]}};
    }
    throw UsageError("the local pair takes no -u (it picks two free loopback ports) or exactly "
                     "two: -u publisher_host:port -u subscriber_host:port");
  }

private:
  // Parsed again by open() rather than cached by validate(): validate() is const, and
  // resolving twice at setup costs nothing that matters.
  UdpAddresses parse(Role role) const
  {
    if (role == Role::subscriber && m_addresses.size() < 2) {
      throw UsageError("a subscriber needs the publisher's address: "
                       "-u own_host:port -u publisher_host:port");
    }
    if (m_addresses.empty()) {
      throw UsageError("a publisher needs its own address: -u own_host:port "
                       "(then -u per subscriber, or none: it learns them from their hellos)");
    }
    UdpAddresses addresses;
    addresses.own = udp::parse_ipv4_endpoint(m_addresses[0], flag);
    for (std::size_t i = 1; i < m_addresses.size(); ++i) {
      addresses.peers.push_back(parse_peer(m_addresses[i]));
    }
    if (addresses.peers.size() > udp::UdpEndpoint::max_peers) {
      throw UsageError("too many -u peers: " + std::to_string(addresses.peers.size()) +
                       " (at most " + std::to_string(udp::UdpEndpoint::max_peers) + ")");
    }
    return addresses;
  }

  po::options_description m_options;
  std::vector<std::string> m_addresses;
};

} // namespace

std::unique_ptr<Transport> make_udp_transport()
{
  return std::make_unique<UdpTransport>();
}

} // namespace netprof
