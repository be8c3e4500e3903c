#include "multicast_options.hpp"

#include "interfaces.hpp"
#include "option_values.hpp"
#include "socket_address.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>

namespace netprof::udp {

namespace {

namespace po = boost::program_options;

constexpr const char* default_ttl = "1";
constexpr const char* default_loopback = "on";

bool given(const po::variables_map& vm, const char* name)
{
  return vm.count(name) != 0 && !vm[name].defaulted();
}

// An interface by IPv4 address or by name, among those the host has.
MulticastInterface find_interface(const std::string& value)
{
  const std::vector<Ipv4Interface> interfaces = ipv4_interfaces();
  in_addr wanted{};
  const bool by_address = inet_pton(AF_INET, value.c_str(), &wanted) == 1;
  std::string known;
  for (const Ipv4Interface& candidate : interfaces) {
    if (by_address ? candidate.address.s_addr == wanted.s_addr : candidate.name == value) {
      return MulticastInterface{candidate.name, candidate.address, candidate.index};
    }
    known += (known.empty() ? "" : ", ") + to_string(candidate.address) + " (" + candidate.name + ")";
  }
  throw UsageError("bad --mc-interface value '" + value +
                   "': no interface has this address or name (these do: " +
                   (known.empty() ? "none" : known) + ")");
}

} // namespace

MulticastOptions::MulticastOptions()
    : m_options("UDP multicast"), m_ttl(default_ttl), m_loopback(default_loopback)
{
  m_options.add_options()
    ("multicast,m", po::value<std::string>(&m_group)->value_name("group:port"),
     "UDP multicast: every process joins the group and binds its port; publisher data and "
     "the subscribers' back channel both go to the group. The group must be in 224.0.0.0/4; "
     "default 239.255.0.1:4150 (MADARA's)")
    ("mc-ttl", po::value<std::string>(&m_ttl)->value_name("N")->default_value(default_ttl),
     "multicast TTL, 0 to 255: 0 keeps datagrams on this host, 1 on the local network")
    ("mc-loopback",
     po::value<std::string>(&m_loopback)->value_name("on|off")->default_value(default_loopback),
     "also deliver to processes on this host (needed when they all run on one host)")
    ("mc-interface", po::value<std::string>(&m_interface)->value_name("ADDR|NAME"),
     "interface to send and join on, by IPv4 address or name; default: the one the route to "
     "the group picks (on loopback that needs: ip route add 224.0.0.0/4 dev lo)");
}

bool MulticastOptions::selected(const po::variables_map& vm) const
{
  return given(vm, "multicast") || given(vm, "mc-ttl") || given(vm, "mc-loopback") ||
         given(vm, "mc-interface");
}

MulticastSettings MulticastOptions::parse() const
{
  const std::string value = m_group.empty() ? default_multicast_group : m_group;
  MulticastSettings settings;
  settings.group = parse_ipv4_endpoint(value, "-m");
  if (!IN_MULTICAST(ntohl(settings.group.sin_addr.s_addr))) {
    throw UsageError("bad -m value '" + value + "': " + to_string(settings.group.sin_addr) +
                     " is not a multicast group (224.0.0.0 to 239.255.255.255)");
  }
  if (settings.group.sin_port == 0) {
    throw UsageError("bad -m value '" + value +
                     "': the group needs a port other than 0 (every process binds the same one)");
  }
  settings.ttl = static_cast<int>(parse_whole_number("--mc-ttl", m_ttl, 0, 255));
  settings.loopback = parse_on_off("--mc-loopback", m_loopback);
  if (!m_interface.empty()) {
    settings.interface = find_interface(m_interface);
  }
  return settings;
}

std::vector<std::string> MulticastOptions::arguments(const std::string& group,
                                                     bool on_this_host) const
{
  std::vector<std::string> arguments = {"-m", group};
  const std::string ttl = on_this_host && m_ttl == default_ttl ? "0" : m_ttl;
  const std::string interface = on_this_host && m_interface.empty() ? "127.0.0.1" : m_interface;
  if (ttl != default_ttl) {
    arguments.insert(arguments.end(), {"--mc-ttl", ttl});
  }
  if (m_loopback != default_loopback) {
    arguments.insert(arguments.end(), {"--mc-loopback", m_loopback});
  }
  if (!interface.empty()) {
    arguments.insert(arguments.end(), {"--mc-interface", interface});
  }
  return arguments;
}

} // namespace netprof::udp
