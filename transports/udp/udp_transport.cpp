#include "udp_transport.hpp"

#include "free_ports.hpp"
#include "socket_address.hpp"
#include "udp_endpoint.hpp"
#include "udp_sockets.hpp"
#include "udp_tuning.hpp"

#include <netprof/errors.hpp>

#include <string>
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

std::vector<std::string> concatenated(std::vector<std::string> first,
                                      const std::vector<std::string>& second)
{
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

class UdpTransport final : public Transport {
public:
  explicit UdpTransport(std::shared_ptr<udp::UdpTuningOptions> tuning)
      : m_tuning(std::move(tuning)), m_options("UDP unicast")
  {
    m_options.add_options()(
        "udp,u",
        po::value<std::vector<std::string>>(&m_addresses)->composing()->value_name("host:port"),
        "UDP unicast, repeatable. The first -u is this process's own bind address; each further "
        "-u is a peer it sends to. A subscriber needs the publisher's address; a publisher also "
        "learns subscribers from their hellos.");
    m_options.add(m_tuning->options());
  }

  UdpTransport(const UdpTransport&) = delete; // m_options points at m_addresses
  UdpTransport& operator=(const UdpTransport&) = delete;

  po::options_description& options() override { return m_options; }

  bool selected(const po::variables_map& given) const override { return given.count("udp") > 0; }

  void validate(Role role) const override
  {
    const UdpAddresses addresses = parse(role);
    // Subscribers send their hellos to the address they were given, and none can be given
    // port 0, so a publisher bound to a port the system picks would wait out --wait alone.
    // (The local pair gives its publisher a real port; a subscriber may use 0: the publisher
    // learns its port from its hello.)
    if (role == Role::publisher && addresses.own.sin_port == 0) {
      throw UsageError(std::string("bad ") + flag + " value '" + m_addresses[0] +
                       "': a publisher needs a port other than 0, since its subscribers send "
                       "to it (only a subscriber's own port may be 0)");
    }
    m_tuning->parse();
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    const UdpAddresses addresses = parse(request.role);
    return std::make_unique<udp::UdpEndpoint>(udp::open_unicast(addresses.own, addresses.peers,
                                                                request.role),
                                              m_tuning->parse(), request.queue_length_bytes);
  }

  LocalPairArguments local_pair_arguments() const override
  {
    m_tuning->parse(); // a bad value is reported before the children start
    const std::vector<std::string> tuning = m_tuning->arguments();
    if (m_addresses.empty()) {
      const std::vector<std::uint16_t> ports = udp::pick_free_loopback_ports(2);
      const std::string publisher = "127.0.0.1:" + std::to_string(ports[0]);
      const std::string subscriber = "127.0.0.1:" + std::to_string(ports[1]);
      return {concatenated({"-u", publisher}, tuning),
              concatenated({"-u", subscriber, "-u", publisher}, tuning)};
    }
    if (m_addresses.size() == 2) {
      // Each is the other's peer, so both must be complete addresses with a real port.
      parse_peer(m_addresses[0]);
      parse_peer(m_addresses[1]);
      return {concatenated({"-u", m_addresses[0], "-u", m_addresses[1]}, tuning),
              concatenated({"-u", m_addresses[1], "-u", m_addresses[0]}, tuning)};
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
    if (addresses.peers.size() > udp::PeerTable::capacity) {
      throw UsageError("too many -u peers: " + std::to_string(addresses.peers.size()) +
                       " (at most " + std::to_string(udp::PeerTable::capacity) + ")");
    }
    return addresses;
  }

  std::shared_ptr<udp::UdpTuningOptions> m_tuning;
  po::options_description m_options;
  std::vector<std::string> m_addresses;
};

} // namespace

std::unique_ptr<Transport> make_udp_transport(std::shared_ptr<udp::UdpTuningOptions> tuning)
{
  return std::make_unique<UdpTransport>(std::move(tuning));
}

std::unique_ptr<Transport> make_udp_transport()
{
  return make_udp_transport(std::make_shared<udp::UdpTuningOptions>());
}

UdpTransportFactories make_udp_transport_factories()
{
  auto tuning = std::make_shared<udp::UdpTuningOptions>();
  return {[tuning] { return make_udp_transport(tuning); },
          [tuning] { return make_multicast_transport(tuning); },
          [tuning] { return make_broadcast_transport(tuning); }};
}

} // namespace netprof
