#include "free_ports.hpp"
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

namespace po = boost::program_options;

// UDP multicast, MADARA's default transport: publisher and subscribers all join one group and
// port; data goes to the group and so does the back channel. Without -m it uses MADARA's group,
// so it can serve as the transport when none is given.
class MulticastTransport final : public Transport {
public:
  explicit MulticastTransport(std::shared_ptr<udp::UdpTuningOptions> tuning)
      : m_tuning(std::move(tuning))
  {
  }

  po::options_description& options() override { return m_multicast.options(); }

  // Any --mc-* option selects multicast, so that `--mc-ttl 0` alone still means MADARA's group.
  bool selected(const po::variables_map& given) const override
  {
    return m_multicast.selected(given);
  }

  // Only -m names it: -b with --mc-ttl is broadcast given an option it does not read, not two
  // transports.
  bool named(const po::variables_map& given) const override
  {
    return given.count("multicast") > 0;
  }

  bool reads_option(const std::string& long_name) override
  {
    return Transport::reads_option(long_name) || m_tuning->has_option(long_name);
  }

  // The roles need nothing different: everyone joins the same group.
  void validate(Role) const override
  {
    m_multicast.parse();
    m_tuning->parse();
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    return std::make_unique<udp::UdpEndpoint>(udp::open_multicast(m_multicast.parse()),
                                              m_tuning->parse(), request.queue_length_bytes);
  }

  LocalPairArguments local_pair_arguments() const override
  {
    const udp::MulticastSettings settings = m_multicast.parse();
    m_tuning->parse();
    std::vector<std::string> arguments;
    if (m_multicast.group_given()) {
      arguments = m_multicast.arguments(udp::to_string(settings.group), false);
    } else {
      // MADARA's group on a port nobody uses, sent and joined on lo: the pair's traffic stays
      // on this host and away from any real MADARA traffic on the default port.
      const std::uint16_t port = udp::pick_free_loopback_ports(1).front();
      const std::string group = std::string(udp::default_multicast_group);
      arguments = m_multicast.arguments(group.substr(0, group.rfind(':') + 1) + std::to_string(port),
                                        true);
    }
    const std::vector<std::string> tuning = m_tuning->arguments();
    arguments.insert(arguments.end(), tuning.begin(), tuning.end());
    return {arguments, arguments};
  }

private:
  std::shared_ptr<udp::UdpTuningOptions> m_tuning;
  udp::MulticastOptions m_multicast;
};

} // namespace

std::unique_ptr<Transport> make_multicast_transport(std::shared_ptr<udp::UdpTuningOptions> tuning)
{
  return std::make_unique<MulticastTransport>(std::move(tuning));
}

} // namespace netprof
