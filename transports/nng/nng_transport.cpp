#include "nng_transport.hpp"

#include "nng_address.hpp"
#include "nng_endpoint.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/socket_file.hpp"

#include <netprof/errors.hpp>

#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace netprof {

namespace {

using nng_parts::NngAddress;
using nng_parts::Pattern;
using nng_parts::Scheme;

constexpr const char* flag = "--nng";

const OptionGroup& nng_options()
{
  static const OptionGroup group{
      "NNG",
      {transport_common::naming_option(
           "nng", "URL",
           "NNG (nanomsg-next-gen): tcp://host:port or ipc:///path. The publisher "
           "listens there (0.0.0.0: every interface), subscribers dial it. With pubsub "
           "and pushpull the back channel (hellos, echoes, final counters) listens at the "
           "next tcp port, or at the ipc path with \".back\" after it; pushpull's control "
           "channel at the port after that, or the path with \".ctl\". Under --publishers "
           "and --topics stream k listens 3k ports up, or at the path with \".k\" after it. "
           "--local-pair takes none (free loopback ports) or one (tcp port 0: netprof "
           "picks).")
           .per_stream(StreamRule::address, nng_parts::ports_per_stream),
       OptionSpec("nng-pattern", "pubsub|pushpull|pair", Choice{{"pubsub", "pushpull", "pair"}},
                  "the NNG protocols that carry the data: pubsub (pub0/sub0, any number of "
                  "subscribers), pushpull (push0/pull0) or pair (pair0, both ways over one "
                  "connection); pair takes exactly one subscriber, and so does pushpull but "
                  "under --fanout round-robin, where push0 deals each message to one of any "
                  "number. Give every process the same")
           .with_default("pubsub")}};
  return group;
}

// --subscribers as given (the core checks its value; here only its meaning for the pattern).
std::optional<std::uint64_t> subscribers_given(const OptionValues& values)
{
  std::optional<std::uint64_t> found;
  for (const GivenOption& option : values.in_order()) {
    if (option.long_name == "subscribers" && !option.values.empty()) {
      std::uint64_t number = 0;
      const std::string& text = option.values.back();
      if (std::from_chars(text.data(), text.data() + text.size(), number).ec == std::errc{}) {
        found = number;
      }
    }
  }
  return found;
}

// push0 deals messages out in turn, so a second subscriber would take half the data and
// each would count the other half as loss, unless the run deals them (--fanout round-robin);
// pair0 is one connection by definition; pub0 cannot deal at all.
void check_subscribers(Pattern chosen, std::uint64_t subscribers, bool round_robin)
{
  if (round_robin && chosen != Pattern::pushpull) {
    throw UsageError(std::string("--fanout round-robin with --nng-pattern ") +
                     nng_parts::pattern_name(chosen) +
                     (chosen == Pattern::pair ? ": NNG's pair0 joins two sockets only"
                                              : ": pub0 sends every message to every subscriber") +
                     "; use --nng-pattern pushpull, whose push0 deals each message to one");
  }
  if (chosen == Pattern::pubsub || subscribers <= 1 || round_robin) {
    return;
  }
  throw UsageError(std::string("--nng-pattern ") + nng_parts::pattern_name(chosen) +
                   " takes exactly one subscriber, not " + std::to_string(subscribers) +
                   (chosen == Pattern::pair
                        ? ": NNG's pair0 joins two sockets only; use --nng-pattern pubsub for "
                          "several subscribers"
                        : ": push0 deals each message to one of its pullers in turn, so each "
                          "subscriber would get a share and count the rest as loss; use "
                          "--nng-pattern pubsub for several subscribers, or --fanout "
                          "round-robin to deal the messages out"));
}

// Every address the pattern listens at, each refused here (a port past 65535) rather than as
// the endpoint opens.
void check_channels(const NngAddress& data, Pattern chosen)
{
  if (chosen != Pattern::pair) {
    nng_parts::back_channel_address(data);
  }
  if (chosen == Pattern::pushpull) {
    nng_parts::control_channel_address(data);
  }
}

NngAddress parse_address(const std::optional<std::string>& given, Pattern chosen, Role role)
{
  if (!given) {
    throw UsageError(role == Role::publisher
                         ? "an nng publisher needs the URL it listens at: --nng "
                           "tcp://host:port or --nng ipc:///path"
                         : "an nng subscriber needs its publisher's URL: --nng "
                           "tcp://host:port or --nng ipc:///path");
  }
  NngAddress parsed = nng_parts::parse_nng_address(*given);
  check_channels(parsed, chosen);
  return parsed;
}

// The pattern decides: pub0 drops at a full queue, push0 and pair0 push back on the
// publisher. Each process applies its own pattern, so every one must be given the same.
EffectiveQos nng_qos(Pattern chosen, const EndpointRequest& request)
{
  const bool waits = chosen != Pattern::pubsub;
  if (request.qos.history && request.qos.history->depth)
    qos::refuse(qos::history_option(*request.qos.history), "nng",
                "its queues are sized from -q (NNG_OPT_SENDBUF/RECVBUF, at most 8192 "
                "messages): give keep-last and size them with -q (the report states the "
                "messages they hold)");
  const std::optional<bool> asked = qos::publisher_waits(request.qos, "nng");
  if (asked && *asked != waits)
    throw UsageError(to_string(request.qos) + " is not what --nng-pattern " +
                     nng_parts::pattern_name(chosen) +
                     (waits ? " does: push0 and pair0 make the publisher wait at a full queue "
                              "(reliable, keep-all); give --nng-pattern pubsub for best-effort"
                            : " does: pub0 drops at a full queue (best-effort, keep-last); "
                              "give --nng-pattern pushpull or pair for reliable"));
  EffectiveQos effective;
  effective.reliability = waits ? Reliability::reliable : Reliability::best_effort;
  effective.history = waits ? HistoryKind::keep_all : HistoryKind::keep_last;
  effective.depth = static_cast<std::uint64_t>(
      nng_parts::queue_messages(request.queue_length_bytes, request.message_size_or_default()));
  effective.set_by = QosSetBy::every_process;
  effective.meaning =
      waits ? std::string(nng_parts::pattern_name(chosen)) +
                  ": at a full queue (the depth) the publisher waits; nothing is dropped"
            : "pubsub: at a full queue (the depth) pub0 drops the message for that "
              "subscriber; a reader that lags loses";
  return effective;
}

std::unique_ptr<Endpoint> open_nng(const NngAddress& data, Pattern chosen,
                                   const EndpointRequest& request)
{
  if (request.role == Role::publisher) {
    check_subscribers(chosen, request.subscribers, request.round_robin);
  }
  nng_parts::EndpointSettings settings;
  settings.role = request.role;
  settings.pattern = chosen;
  settings.data = data;
  settings.queue_length_bytes = request.queue_length_bytes;
  settings.message_bytes = request.message_size_or_default();
  settings.header_bytes = request.header_bytes;
  settings.largest_control_message = request.largest_control_message;
  settings.round_robin = request.round_robin;
  return std::make_unique<nng_parts::NngEndpoint>(settings);
}

LocalPairPlan local_pair_plan(const std::optional<std::string>& given, Pattern chosen,
                              std::size_t subscribers, std::size_t streams, bool round_robin)
{
  check_subscribers(chosen, subscribers, round_robin);
  NngAddress listen_at = nng_parts::parse_nng_address(given.value_or("tcp://127.0.0.1:0"),
                                                      /*allow_port_zero=*/true);
  if (listen_at.scheme == Scheme::tcp && listen_at.port == 0) {
    const std::string host = nng_parts::reachable_form(listen_at).host;
    const std::size_t channels = chosen == Pattern::pair ? 1 : chosen == Pattern::pushpull ? 3 : 2;
    // Each further stream is ports_per_stream up (its own channels within them).
    const std::size_t ports = (streams - 1) * nng_parts::ports_per_stream + channels;
    listen_at =
        nng_parts::parse_nng_address("tcp://" + listen_at.host + ":" +
                                     std::to_string(nng_parts::pick_free_port_run(host, ports)));
  }
  check_channels(listen_at, chosen); // a bad one is reported before any child
  const std::string dial = nng_parts::reachable_form(listen_at).url;
  LocalPairPlan arguments{{flag, listen_at.url}, {}, {}};
  for (std::size_t i = 0; i < subscribers; ++i) {
    arguments.subscribers.push_back({flag, dial});
  }
  if (listen_at.scheme == Scheme::ipc) {
    arguments.files.push_back(listen_at.path);
    arguments.files.push_back(listen_at.path + nng_parts::back_channel_suffix);
    arguments.files.push_back(listen_at.path + nng_parts::control_channel_suffix);
  }
  return arguments;
}

TransportPlan plan_nng(const PlanRequest& request)
{
  const auto chosen = static_cast<Pattern>(*request.values.choice(nng_options()["nng-pattern"]));
  // None for a bare --nng too, which asks the local pair to pick the URL.
  std::optional<std::string> given = request.values.text(nng_options()["nng"]);
  if (given && given->empty())
    given.reset();
  return transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return nng_qos(chosen, endpoint); },
      [&] {
        return local_pair_plan(given, chosen, request.pair_subscribers, request.pair_streams,
                               request.endpoint.round_robin);
      },
      [&]() -> transport_common::SingleRolePlan {
        const Role role = request.single_role();
        if (role == Role::publisher) {
          check_subscribers(chosen, subscribers_given(request.values).value_or(1),
                            request.endpoint.round_robin);
        }
        const NngAddress data = parse_address(given, chosen, role);
        return {{data.url}, [data, chosen](const EndpointRequest& endpoint) {
                  return open_nng(data, chosen, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor nng_transport()
{
  return {.name = "nng",
          .summary = "NNG over tcp:// or ipc://: --nng URL, where the publisher listens",
          .options = nng_options(),
          .also_reads = {},
          .flags = {.deals_in_turn = true},
          // Across hosts its back channel takes the next tcp port too, which the launcher's
          // hosts file does not reserve: not offered until it is tried (issue 33).
          .remote_launch = std::nullopt,
          .plan = plan_nng};
}

} // namespace netprof
