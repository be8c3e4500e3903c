#include "broadcast_address.hpp"
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

namespace po = boost::program_options;

// The local pair's address when none is given: lo's broadcast address keeps the traffic on
// this host.
constexpr const char* loopback_broadcast = "127.255.255.255";

// UDP broadcast: every process binds the broadcast address and port and sends to it, data and
// back channel alike.
class BroadcastTransport final : public Transport {
public:
  explicit BroadcastTransport(std::shared_ptr<udp::UdpTuningOptions> tuning)
      : m_tuning(std::move(tuning)), m_options("UDP broadcast")
  {
    m_options.add_options()(
        "broadcast,b", po::value<std::string>(&m_address)->value_name("addr:port"),
        "UDP broadcast: every process binds this broadcast address and port and sends to it, "
        "publisher data and back channel alike. The address must be an interface's broadcast "
        "address (127.255.255.255 stays on this host) or 255.255.255.255");
  }

  BroadcastTransport(const BroadcastTransport&) = delete; // m_options points at m_address
  BroadcastTransport& operator=(const BroadcastTransport&) = delete;

  po::options_description& options() override { return m_options; }

  bool selected(const po::variables_map& given) const override
  {
    return given.count("broadcast") > 0;
  }

  // The options every UDP mode shares are shown in the udp entry's group.
  bool reads_option(const std::string& long_name) override
  {
    return Transport::reads_option(long_name) || m_tuning->has_option(long_name);
  }

  void validate(Role) const override
  {
    parse();
    m_tuning->parse();
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    return std::make_unique<udp::UdpEndpoint>(udp::open_broadcast(parse()), m_tuning->parse(),
                                              request.queue_length_bytes);
  }

  LocalPairArguments local_pair_arguments() const override
  {
    m_tuning->parse();
    std::vector<std::string> arguments = {"-b"};
    if (m_address.empty()) {
      arguments.push_back(std::string(loopback_broadcast) + ":" +
                          std::to_string(udp::pick_free_loopback_ports(1).front()));
    } else {
      arguments.push_back(udp::to_string(parse()));
    }
    const std::vector<std::string> tuning = m_tuning->arguments();
    arguments.insert(arguments.end(), tuning.begin(), tuning.end());
    return {arguments, arguments};
  }

private:
  sockaddr_in parse() const
  {
    if (m_address.empty()) {
      throw UsageError("broadcast needs its address: -b addr:port, e.g. -b " +
                       std::string(loopback_broadcast) + ":4150");
    }
    return udp::parse_broadcast_address(m_address);
  }

  std::shared_ptr<udp::UdpTuningOptions> m_tuning;
  po::options_description m_options;
  std::string m_address;
};

} // namespace

std::unique_ptr<Transport> make_broadcast_transport(std::shared_ptr<udp::UdpTuningOptions> tuning)
{
  return std::make_unique<BroadcastTransport>(std::move(tuning));
}

} // namespace netprof
