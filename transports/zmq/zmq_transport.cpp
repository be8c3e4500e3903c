#include "zmq_transport.hpp"

#include "zmq_address.hpp"
#include "zmq_endpoint.hpp"

#include <netprof/errors.hpp>

#include <charconv>
#include <string>
#include <vector>

namespace netprof {

namespace {

namespace po = boost::program_options;
using zeromq::Address;
using zeromq::Scheme;
using zeromq::Use;

constexpr int max_io_threads = 64;
// The core's default -s, for when the payload size is not known.
constexpr std::size_t default_payload_bytes = 128;
// Off by default: on loopback it saves the publisher's copy but not throughput
// (docs/transport-zmq.md, "Zero-copy sends").
constexpr const char* default_zero_copy_from = "0";

struct ZmqAddresses {
  Address own;
  std::vector<Address> peers;
};

bool given(const po::variables_map& vm, const char* name)
{
  return vm.count(name) != 0 && !vm[name].defaulted();
}

// A whole number from `low` to `high` in an option's text; UsageError naming the option if not.
template <typename Number>
Number whole_number(const std::string& text, const char* option, Number low, Number high)
{
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < low || value > high) {
    throw UsageError("invalid value '" + text + "' for --" + option +
                     ": expected a whole number from " + std::to_string(low) + " to " +
                     std::to_string(high));
  }
  return value;
}

// The endpoint a subscriber connects to, for one the publisher binds.
std::string connect_form(const Address& bound)
{
  if (bound.scheme == Scheme::tcp && bound.host == "*") {
    return "tcp://127.0.0.1:" + bound.port;
  }
  return bound.text;
}

class ZmqTransport final : public Transport {
public:
  ZmqTransport() : m_options("ZeroMQ")
  {
    m_options.add_options()(
        "zmq",
        po::value<std::vector<std::string>>(&m_endpoints)->composing()->value_name("endpoint"),
        "ZeroMQ endpoint, repeatable: tcp://host:port or ipc://path (inproc:// cannot join "
        "separate processes). The first --zmq is this process's own, bound; each further one "
        "is connected. One socket carries the data and, in reverse, the back channel, so the "
        "publisher needs only its own endpoint and a subscriber gives its own, then the "
        "publisher's. --local-pair takes none (tcp, free loopback ports), one (the "
        "publisher's; ipc://* or tcp://host:* let netprof choose) or two.")(
        "zmq-io-threads", po::value<std::string>(&m_io_threads_text)->default_value("1")
                              ->value_name("N"),
        "ZeroMQ I/O threads per process (1 to 64)")(
        "zmq-nodrop", po::bool_switch(&m_no_drop),
        "at the high-water mark the publisher waits instead of dropping silently "
        "(ZMQ_XPUB_NODROP). The HWM is -q bytes' worth of messages per peer and direction.")(
        "zmq-zero-copy", po::value<std::string>(&m_zero_copy_text)
                             ->default_value(default_zero_copy_from)->value_name("BYTES"),
        "publisher: payloads of at least BYTES are sent without copying them, from buffers "
        "lent to ZeroMQ in turn (as many as the high-water mark queues, within 256 MiB; a "
        "message is copied only while all are still lent); 0, the default, copies every "
        "message");
  }

  ZmqTransport(const ZmqTransport&) = delete; // m_options points at the members
  ZmqTransport& operator=(const ZmqTransport&) = delete;

  po::options_description& options() override { return m_options; }

  bool selected(const po::variables_map& vm) const override
  {
    return named(vm) || given(vm, "zmq-io-threads") || given(vm, "zmq-zero-copy") ||
           (given(vm, "zmq-nodrop") && vm["zmq-nodrop"].as<bool>());
  }

  bool named(const po::variables_map& vm) const override { return vm.count("zmq") > 0; }

  void validate(Role role) const override
  {
    // No --zmq at all is checked by open(): the local pair, selected by --zmq-nodrop alone
    // say, picks its own endpoints.
    if (!m_endpoints.empty()) {
      const ZmqAddresses addresses = parse();
      // Subscribers connect to the publisher's endpoint, and none can connect to a port or
      // path left to ZeroMQ: such a publisher would wait out --wait alone. It is fine for a
      // subscriber's own endpoint, or for a publisher that connects to its subscribers; the
      // local pair makes its publisher's definite before starting it.
      if (role == Role::publisher && addresses.own.wildcard && addresses.peers.empty()) {
        const bool ipc = addresses.own.scheme == Scheme::ipc;
        throw UsageError("bad --zmq value '" + m_endpoints[0] + "': a publisher needs " +
                         (ipc ? "a definite path" : "a port other than 0 or *") +
                         ", since its subscribers connect to it (only --local-pair picks one "
                         "itself)");
      }
    }
    io_threads();
    zero_copy_from();
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    ZmqAddresses addresses = parse();
    zeromq::EndpointSettings settings;
    settings.role = request.role;
    settings.own = std::move(addresses.own);
    settings.peers = std::move(addresses.peers);
    settings.queue_length_bytes = request.queue_length_bytes;
    settings.message_bytes = request.message_size > 0
                                 ? request.message_size
                                 : request.header_bytes + default_payload_bytes;
    settings.header_bytes = request.header_bytes;
    settings.io_threads = io_threads();
    settings.no_drop = m_no_drop;
    settings.zero_copy_from = zero_copy_from();
    return std::make_unique<zeromq::ZmqEndpoint>(settings);
  }

  LocalPairArguments local_pair_arguments() const override
  {
    std::vector<Address> pair;
    if (m_endpoints.empty()) {
      pair = {zeromq::parse_address("tcp://127.0.0.1:*", Use::bind),
              zeromq::parse_address("tcp://127.0.0.1:*", Use::bind)};
    } else if (m_endpoints.size() <= 2) {
      pair.push_back(zeromq::parse_address(m_endpoints[0], Use::bind));
      pair.push_back(m_endpoints.size() == 2 ? zeromq::parse_address(m_endpoints[1], Use::bind)
                                             : same_kind(pair[0]));
    } else {
      throw UsageError("the local pair takes at most two --zmq: the publisher's own endpoint, "
                       "then the subscriber's (or none: tcp on free loopback ports)");
    }
    const std::vector<std::string> bound = concrete(pair);
    const Address publisher = zeromq::parse_address(bound[0], Use::bind);
    LocalPairArguments arguments{{"--zmq", bound[0]},
                                 {"--zmq", bound[1], "--zmq", connect_form(publisher)}};
    for (auto* side : {&arguments.publisher, &arguments.subscriber}) {
      side->insert(side->end(), {"--zmq-io-threads", std::to_string(io_threads())});
      if (m_no_drop) {
        side->push_back("--zmq-nodrop");
      }
    }
    if (const std::size_t zero_copy = zero_copy_from(); zero_copy > 0) {
      arguments.publisher.insert(arguments.publisher.end(),
                                 {"--zmq-zero-copy", std::to_string(zero_copy)});
    }
    return arguments;
  }

private:
  // Parsed again by open() rather than cached by validate(): validate() is const, and
  // resolving twice at setup costs nothing that matters.
  ZmqAddresses parse() const
  {
    if (m_endpoints.empty()) {
      throw UsageError("ZeroMQ needs this process's own endpoint: --zmq tcp://host:port or "
                       "--zmq ipc://path (a subscriber then adds the publisher's)");
    }
    ZmqAddresses addresses;
    addresses.own = zeromq::parse_address(m_endpoints[0], Use::bind);
    for (std::size_t i = 1; i < m_endpoints.size(); ++i) {
      addresses.peers.push_back(zeromq::parse_address(m_endpoints[i], Use::connect));
    }
    for (std::size_t i = 0; i < addresses.peers.size(); ++i) {
      const Address& peer = addresses.peers[i];
      const bool is_own = peer.text == addresses.own.text ||
                          (peer.scheme == Scheme::tcp && addresses.own.scheme == Scheme::tcp &&
                           addresses.own.host == "*" && peer.port == addresses.own.port);
      if (is_own) {
        throw UsageError("bad --zmq value '" + m_endpoints[i + 1] +
                         "': that is this process's own endpoint (the first --zmq); "
                         "give the peer's");
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (addresses.peers[j].text == peer.text) {
          throw UsageError("bad --zmq value '" + m_endpoints[i + 1] + "': given twice");
        }
      }
    }
    return addresses;
  }

  int io_threads() const
  {
    return whole_number(m_io_threads_text, "zmq-io-threads", 1, max_io_threads);
  }

  std::size_t zero_copy_from() const
  {
    return whole_number<std::size_t>(m_zero_copy_text, "zmq-zero-copy", 0,
                                     zeromq::ZmqEndpoint::max_payload_size);
  }

  // The subscriber's own endpoint when the user gave only the publisher's: the same scheme,
  // a free port on the same host or a fresh ipc path.
  static Address same_kind(const Address& publisher)
  {
    if (publisher.scheme == Scheme::ipc) {
      const bool abstract = !publisher.path.empty() && publisher.path.front() == '@';
      return zeromq::parse_address(abstract ? publisher.text + "-subscriber" : "ipc://*",
                                   Use::bind);
    }
    const std::string host = publisher.host == "*" ? "127.0.0.1" : publisher.host;
    return zeromq::parse_address("tcp://" + (publisher.ipv6 ? "[" + host + "]" : host) + ":*",
                                 Use::bind);
  }

  // The local pair's two bound endpoints with every port or path left open made definite, so
  // that the subscriber can connect to the publisher's. Free ports on one host are picked
  // together, so they differ from each other and from any port given.
  static std::vector<std::string> concrete(const std::vector<Address>& pair)
  {
    static constexpr std::string_view roles[] = {"publisher", "subscriber"};
    std::vector<std::string> result;
    for (std::size_t i = 0; i < pair.size(); ++i) {
      const Address& address = pair[i];
      if (!address.wildcard) {
        result.push_back(address.text);
      } else if (address.scheme == Scheme::ipc) {
        result.push_back("ipc://" + zeromq::temporary_ipc_path(roles[i]));
      } else if (address.ipv6) {
        throw UsageError("bad --zmq value '" + address.text +
                         "': the local pair picks free ports on IPv4 only; give the port");
      } else {
        std::vector<std::uint16_t> ports = zeromq::pick_free_tcp_ports(address.host, 3);
        for (const Address& other : pair) {
          if (!other.wildcard && other.scheme == Scheme::tcp) {
            std::erase(ports, static_cast<std::uint16_t>(std::stoul(other.port)));
          }
        }
        for (const std::string& taken : result) {
          std::erase_if(ports, [&](std::uint16_t port) {
            return taken == "tcp://" + address.host + ":" + std::to_string(port);
          });
        }
        result.push_back("tcp://" + address.host + ":" + std::to_string(ports.front()));
      }
    }
    return result;
  }

  po::options_description m_options;
  std::vector<std::string> m_endpoints;
  std::string m_io_threads_text = "1";
  std::string m_zero_copy_text = default_zero_copy_from;
  bool m_no_drop = false;
};

} // namespace

std::unique_ptr<Transport> make_zmq_transport()
{
  return std::make_unique<ZmqTransport>();
}

} // namespace netprof
