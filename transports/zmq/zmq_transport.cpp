#include "zmq_transport.hpp"

#include "zmq_address.hpp"
#include "zmq_curve.hpp"
#include "zmq_endpoint.hpp"
#include "zmq_limits.hpp"
#include "zmq_local_pair.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace netprof {

namespace {

using zeromq::Address;
using zeromq::Scheme;
using zeromq::Use;

constexpr int max_io_threads = 64;

struct ZmqAddresses {
  Address own;
  std::vector<Address> peers;
};

const OptionGroup& zmq_options()
{
  static const OptionGroup group{
      "ZeroMQ",
      {transport_common::naming_option(
           "zmq", "endpoint",
           "ZeroMQ endpoint, repeatable: tcp://host:port or ipc://path (inproc://name only "
           "with --local-pair --threads, whose publisher and subscriber are threads of one "
           "process). The first --zmq is this process's own, bound; each "
           "further one is connected. One socket carries the data and, in reverse, the "
           "back channel, so the publisher needs only its own endpoint and a subscriber "
           "gives its own, then the publisher's. --local-pair takes none (tcp, free "
           "loopback ports), one (the publisher's; ipc://* or tcp://host:* let netprof "
           "choose) or two. --zmq-pattern pushpull deals the data at the next tcp port, or "
           "at the ipc path with \".deal\" after it. Under --publishers and --topics, stream "
           "k moves the port of each tcp:// up by 2k and puts .k after each ipc:// path.")
           .repeatable()
           .per_stream(StreamRule::address, zeromq::ports_per_stream),
       OptionSpec("zmq-pattern", "pubsub|pushpull", Choice{{"pubsub", "pushpull"}},
                  "the ZeroMQ sockets that carry the data: pubsub (XPUB/XSUB, any number of "
                  "subscribers; at the high-water mark the publisher drops unless "
                  "--zmq-nodrop) or pushpull (PUSH/PULL beside them, which waits at the "
                  "high-water mark). pushpull takes exactly one subscriber, but under "
                  "--fanout round-robin, where PUSH deals each message to one of any number. "
                  "Give every process the same")
           .with_default("pubsub"),
       OptionSpec("zmq-io-threads", "N", WholeNumber{1, max_io_threads},
                  "ZeroMQ I/O threads per process (1 to 64)")
           .with_default("1"),
       OptionSpec("zmq-nodrop", "", Switch{},
                  "at the high-water mark the publisher waits instead of dropping silently "
                  "(ZMQ_XPUB_NODROP). The HWM is -q bytes' worth of messages per peer and "
                  "direction."),
       // Off by default: on loopback it saves the publisher's copy but not throughput
       // (docs/transport-zmq.md, "Zero-copy sends").
       OptionSpec("zmq-zero-copy", "BYTES",
                  WholeNumber{.min = 0,
                              .max = zeromq::ZmqEndpoint::max_payload_size,
                              .byte_suffixes = true},
                  "publisher: payloads of at least BYTES are sent without copying them, from "
                  "buffers lent to ZeroMQ in turn (as many as the high-water mark queues, within "
                  "256 MiB; a message is copied only while all are still lent); 0, the default, "
                  "copies every message")
           .with_default("0")
           .passed(PairRoute::publisher_only),
       OptionSpec("zmq-curve", "FILE", Text{},
                  "ZeroMQ's CURVE security, for tcp across networks you do not trust: every "
                  "connection authenticated and encrypted. FILE holds 32 random bytes (head -c "
                  "32 /dev/urandom > FILE; chmod 600 FILE), the same file for every process of "
                  "the run; a process without it hears nothing and is not heard")}};
  return group;
}

// The zmq options of a command line, parsed once (the endpoints only as text: a single role
// parses them into addresses, a local pair picks what they leave open).
struct ZmqOptions {
  std::vector<std::string> endpoints;
  zeromq::Pattern pattern = zeromq::Pattern::pubsub;
  int io_threads = 1;
  std::size_t zero_copy_from = 0;
  bool no_drop = false;
  bool curve_given = false;
  std::optional<zeromq::CurveKeys> curve;
  // inproc:// joins the threads of one process, so only those of --local-pair --threads.
  zeromq::Inproc inproc = zeromq::Inproc::refused;
};

std::optional<zeromq::CurveKeys> curve_keys(const OptionValues& values)
{
  const std::optional<std::string> path = values.text(zmq_options()["zmq-curve"]);
  if (!path) {
    return std::nullopt;
  }
  if (!zeromq::curve_available()) {
    throw UsageError("--zmq-curve needs a libzmq built with CURVE (zmq_has(\"curve\")), and "
                     "this one is not");
  }
  return zeromq::load_curve_keys(*path);
}

ZmqOptions parse_options(const PlanRequest& request)
{
  const OptionValues& values = request.values;
  ZmqOptions options;
  options.endpoints = values.texts(zmq_options()["zmq"]);
  options.pattern = static_cast<zeromq::Pattern>(*values.choice(zmq_options()["zmq-pattern"]));
  options.io_threads = static_cast<int>(*values.whole_number(zmq_options()["zmq-io-threads"]));
  options.zero_copy_from = *values.whole_number(zmq_options()["zmq-zero-copy"]);
  options.no_drop = values.on(zmq_options()["zmq-nodrop"]);
  options.curve_given = values.given("zmq-curve");
  options.curve = curve_keys(values);
  options.inproc =
      request.threads_of_one_process ? zeromq::Inproc::allowed : zeromq::Inproc::refused;
  return options;
}

void check_peers_differ(const std::vector<std::string>& given, const ZmqAddresses& addresses)
{
  for (std::size_t i = 0; i < addresses.peers.size(); ++i) {
    const Address& peer = addresses.peers[i];
    const bool is_own = peer.text == addresses.own.text ||
                        (peer.scheme == Scheme::tcp && addresses.own.scheme == Scheme::tcp &&
                         addresses.own.host == "*" && peer.port == addresses.own.port);
    if (is_own) {
      throw UsageError("bad --zmq value '" + given[i + 1] +
                       "': that is this process's own endpoint (the first --zmq); "
                       "give the peer's");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (addresses.peers[j].text == peer.text) {
        throw UsageError("bad --zmq value '" + given[i + 1] + "': given twice");
      }
    }
  }
}

ZmqAddresses parse_addresses(const ZmqOptions& options, Role role)
{
  const std::vector<std::string>& given = options.endpoints;
  if (given.empty()) {
    throw UsageError("ZeroMQ needs this process's own endpoint: --zmq tcp://host:port or "
                     "--zmq ipc://path (a subscriber then adds the publisher's)");
  }
  ZmqAddresses addresses;
  addresses.own = zeromq::parse_address(given[0], Use::bind, options.inproc);
  for (std::size_t i = 1; i < given.size(); ++i) {
    addresses.peers.push_back(zeromq::parse_address(given[i], Use::connect, options.inproc));
  }
  std::vector<Address> all = addresses.peers;
  all.push_back(addresses.own);
  zeromq::check_no_curve_over_inproc(options.curve_given, all);
  check_peers_differ(given, addresses);
  // Subscribers connect to the publisher's endpoint, and none can connect to a port or path
  // left to ZeroMQ: such a publisher would wait out --wait alone. It is fine for a
  // subscriber's own endpoint, or for a publisher that connects to its subscribers; the local
  // pair makes its publisher's definite before starting it.
  if (role == Role::publisher && addresses.own.wildcard && addresses.peers.empty()) {
    const bool ipc = addresses.own.scheme == Scheme::ipc;
    throw UsageError("bad --zmq value '" + given[0] + "': a publisher needs " +
                     (ipc ? "a definite path" : "a port other than 0 or *") +
                     ", since its subscribers connect to it (only --local-pair picks one "
                     "itself)");
  }
  return addresses;
}

// PUSH deals messages out in turn, so a second subscriber would take half the data and each
// would count the other half as loss, unless the run deals them (--fanout round-robin); an
// XPUB cannot deal at all.
void check_subscribers(zeromq::Pattern chosen, std::size_t subscribers, bool round_robin)
{
  if (round_robin && chosen == zeromq::Pattern::pubsub) {
    throw UsageError("--fanout round-robin with --zmq-pattern pubsub: an XPUB sends every "
                     "message to every subscriber; use --zmq-pattern pushpull, whose PUSH deals "
                     "each message to one");
  }
  if (chosen == zeromq::Pattern::pubsub || subscribers <= 1 || round_robin) {
    return;
  }
  throw UsageError("--zmq-pattern pushpull takes exactly one subscriber, not " +
                   std::to_string(subscribers) +
                   ": PUSH deals each message to one of its PULLs in turn, so each subscriber "
                   "would get a share and count the rest as loss; use --zmq-pattern pubsub for "
                   "several subscribers, or --fanout round-robin to deal the messages out");
}

// --zmq-nodrop, or what --reliability and --history ask: reliable and keep-all wait at the
// high-water mark, best-effort and keep-last drop there.
bool publisher_waits(const ZmqOptions& options, const QosRequest& request)
{
  const std::optional<bool> asked = qos::publisher_waits(request, "zmq");
  if (options.pattern == zeromq::Pattern::pushpull) {
    if (asked == false)
      throw UsageError(to_string(request) +
                       " is not what --zmq-pattern pushpull does: PUSH makes the publisher "
                       "wait at the high-water mark (reliable, keep-all); give --zmq-pattern "
                       "pubsub for best-effort");
    return true;
  }
  if (asked == false && options.no_drop)
    throw UsageError(to_string(request) +
                     " contradicts --zmq-nodrop, which makes the "
                     "publisher wait at the high-water mark (reliable, keep-all): give one or "
                     "the other");
  return asked.value_or(options.no_drop);
}

// The endpoint's settings that follow from the request alone.
zeromq::EndpointSettings request_settings(const ZmqOptions& options, const EndpointRequest& request)
{
  zeromq::EndpointSettings settings;
  settings.role = request.role;
  settings.pattern = options.pattern;
  settings.round_robin = request.round_robin;
  settings.queue_length_bytes = request.queue_length_bytes;
  settings.message_bytes = request.message_size_or_default();
  settings.header_bytes = request.header_bytes;
  settings.io_threads = options.io_threads;
  settings.no_drop = publisher_waits(options, request.qos);
  if (request.qos.history && request.qos.history->depth)
    settings.history_depth = static_cast<int>(*request.qos.history->depth);
  settings.zero_copy_from = options.zero_copy_from;
  settings.largest_control_message = request.largest_control_message;
  settings.curve = options.curve;
  return settings;
}

// One choice on ZeroMQ: whether the publisher waits at the high-water mark (--zmq-nodrop) or
// drops there. Only the publisher's XPUB drops, so its setting decides.
EffectiveQos zmq_qos(const ZmqOptions& options, const EndpointRequest& request)
{
  const zeromq::EndpointSettings settings = request_settings(options, request);
  const bool waits = settings.no_drop;
  EffectiveQos effective;
  effective.reliability = waits ? Reliability::reliable : Reliability::best_effort;
  effective.history = waits ? HistoryKind::keep_all : HistoryKind::keep_last;
  effective.depth = static_cast<std::uint64_t>(zeromq::high_water_mark(settings));
  effective.set_by = QosSetBy::publisher;
  effective.meaning =
      options.pattern == zeromq::Pattern::pushpull
          ? "pushpull: at the high-water mark (the depth, per subscriber) PUSH makes the "
            "publisher wait; nothing is dropped"
      : waits ? "at the high-water mark (the depth, per subscriber) the publisher waits "
                "(ZMQ_XPUB_NODROP); nothing is dropped"
              : "at the high-water mark (the depth, per subscriber) the publisher drops the "
                "newest message, where DDS keep-last would replace the oldest; either way a "
                "reader that lags loses";
  if (request.role == Role::subscriber)
    effective.meaning += "; the publisher's setting decides, and this subscriber's is not "
                         "checked against it";
  return effective;
}

// What a run may hold in messages: a high-water mark's worth queued, the one being encoded or
// decoded, one in the kernel's hands, and the core's own payload and message buffers.
std::size_t queued_bytes(const zeromq::EndpointSettings& settings)
{
  const auto queued = static_cast<std::size_t>(zeromq::high_water_mark(settings));
  return (queued + 4) * settings.message_bytes;
}

std::unique_ptr<Endpoint> open_zmq(const ZmqOptions& options, const ZmqAddresses& addresses,
                                   const EndpointRequest& request)
{
  zeromq::EndpointSettings settings = request_settings(options, request);
  settings.own = addresses.own;
  settings.peers = addresses.peers;
  // A publisher has a connection per subscriber, made by them or (given their endpoints) by
  // itself; a subscriber one to its publisher, made either way.
  const std::size_t expected = request.role == Role::publisher ? request.subscribers : 1;
  zeromq::check_resource_limits({settings.io_threads,
                                 std::max({settings.peers.size(), expected, std::size_t{1}}),
                                 queued_bytes(settings)});
  return std::make_unique<zeromq::ZmqEndpoint>(settings);
}

TransportPlan plan_zmq(const PlanRequest& request)
{
  const ZmqOptions options = parse_options(request);
  return transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return zmq_qos(options, endpoint); },
      [&] {
        check_subscribers(options.pattern, request.pair_subscribers, request.endpoint.round_robin);
        return zeromq::local_pair_plan({.endpoints = options.endpoints,
                                        .pattern = options.pattern,
                                        .io_threads = options.io_threads,
                                        .inproc = options.inproc,
                                        .curve_given = options.curve_given,
                                        .subscribers = request.pair_subscribers,
                                        .streams = request.pair_streams});
      },
      [&]() -> transport_common::SingleRolePlan {
        if (request.single_role() == Role::publisher) {
          check_subscribers(options.pattern, request.endpoint.subscribers,
                            request.endpoint.round_robin);
        }
        const ZmqAddresses addresses = parse_addresses(options, request.single_role());
        if (options.pattern == zeromq::Pattern::pushpull) {
          // Each address it binds or connects to, refused here rather than as the endpoint opens.
          zeromq::deal_address(addresses.own);
          for (const Address& peer : addresses.peers)
            zeromq::deal_address(peer);
        }
        return {options.endpoints, [options, addresses](const EndpointRequest& endpoint) {
                  return open_zmq(options, addresses, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor zmq_transport()
{
  RemoteLaunch across_hosts{{"--zmq", "tcp://{own}"},
                            {"--zmq", "tcp://{own}", "--zmq", "tcp://{publisher}"}};
  return {.name = "zmq",
          .summary = "ZeroMQ over tcp:// or ipc://: --zmq own_endpoint, then --zmq per peer",
          .options = zmq_options(),
          .also_reads = {},
          // Each endpoint has its own context, but for inproc://, whose two endpoints share
          // the process's (zeromq::ZmqContext).
          .flags = {.threads = true, .deals_in_turn = true},
          .remote_launch = std::move(across_hosts),
          .plan = plan_zmq};
}

} // namespace netprof
