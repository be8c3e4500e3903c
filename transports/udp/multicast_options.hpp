#pragma once

// The multicast transport's own options: -m group:port and the --mc-* settings sockperf's users
// know. Parsing is strict and checks the group and the interface before anything is opened.

#include <boost/program_options.hpp>

#include <netinet/in.h>

#include <optional>
#include <string>
#include <vector>

namespace netprof::udp {

// MADARA's default multicast group.
inline constexpr const char* default_multicast_group = "239.255.0.1:4150";

struct MulticastInterface {
  std::string name;  // "lo"
  in_addr address{}; // the interface's IPv4 address
  unsigned index = 0;
};

struct MulticastSettings {
  sockaddr_in group{};
  int ttl = 1;
  bool loopback = true;
  std::optional<MulticastInterface> interface; // none: the route to the group decides
};

class MulticastOptions {
public:
  MulticastOptions();
  MulticastOptions(const MulticastOptions&) = delete; // the group points at the fields
  MulticastOptions& operator=(const MulticastOptions&) = delete;

  boost::program_options::options_description& options() noexcept { return m_options; }

  // -m or any --mc-* option given on the command line.
  bool selected(const boost::program_options::variables_map& given) const;

  bool group_given() const noexcept { return !m_group.empty(); }

  // Throws UsageError: not a multicast group, port 0, an unknown interface, a bad TTL...
  MulticastSettings parse() const;

  // The local pair: both processes get `group` and the --mc-* options that differ from their
  // defaults; `on_this_host` adds what keeps the traffic on the machine unless the user chose
  // otherwise (send and join on lo, TTL 0).
  std::vector<std::string> arguments(const std::string& group, bool on_this_host) const;

private:
  boost::program_options::options_description m_options;
  std::string m_group;
  std::string m_ttl;
  std::string m_loopback;
  std::string m_interface;
};

} // namespace netprof::udp
