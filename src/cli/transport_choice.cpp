#include "transport_choice.hpp"

#include <netprof/errors.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <string>
#include <string_view>

namespace netprof::cli {

namespace {

[[noreturn]] void usage_error(const std::string& message)
{
  throw UsageError(message);
}

// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& names)
{
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    text += names[i];
  }
  return text;
}

using Descriptors = std::vector<TransportDescriptor>;

// The one transport `picks` accepts; two are a conflict.
template <typename Picks>
const TransportDescriptor* the_only(const Descriptors& transports, Picks&& picks)
{
  const TransportDescriptor* found = nullptr;
  for (const auto& transport : transports) {
    if (!picks(transport)) {
      continue;
    }
    if (found != nullptr) {
      usage_error("conflicting transports: " + found->name + " and " + transport.name +
                  "; give only one");
    }
    found = &transport;
  }
  return found;
}

const TransportDescriptor* find_transport(const Descriptors& transports, std::string_view name)
{
  for (const auto& transport : transports) {
    if (transport.name == name) {
      return &transport;
    }
  }
  return nullptr;
}

// The transport the command line chose: the one named (-u, -m, -b, --zmq, --shm); else the one
// a setting of its own selects (--mc-ttl, --zmq-nodrop, --shm-history); else the default.
// Two named, or two selected by settings alone, are a conflict. A setting beside another
// transport's name is not a second transport: check_options_read() refuses it by name.
const TransportDescriptor& choose_transport(const Descriptors& transports,
                                            const OptionValues& values, const RunConfig& config)
{
  if (auto* by_name = the_only(transports, [&](const auto& t) { return named(t, values); })) {
    return *by_name;
  }
  if (auto* by_setting =
          the_only(transports, [&](const auto& t) { return selected(t, transports, values); })) {
    return *by_setting;
  }
  if (config.local_pair) {
    auto* udp = find_transport(transports, "udp");
    if (udp == nullptr) {
      usage_error("--local-pair needs a transport: this build has no udp (see --help)");
    }
    return *udp;
  }
  // MADARA's default: multicast on 239.255.0.1:4150, when this build has it.
  auto* multicast = find_transport(transports, "multicast");
  if (multicast == nullptr) {
    usage_error("no transport given: use -u host:port (see --help)");
  }
  return *multicast;
}

// Every option the user gave is read by the core or by the chosen transport: one that belongs
// to another transport (--fragment-size with --shm, --mc-ttl with -b) would otherwise be
// ignored without a word.
void check_options_read(const TransportDescriptor& chosen, const Descriptors& transports,
                        const OptionValues& values, const std::vector<OptionGroup>& core)
{
  for (const GivenOption& option : values.in_order()) {
    const std::string& name = option.long_name;
    const bool core_reads = std::any_of(
        core.begin(), core.end(), [&](const OptionGroup& group) { return group.contains(name); });
    if (core_reads || reads_option(chosen, name)) {
      continue;
    }
    std::vector<std::string> readers;
    for (const auto& transport : transports) {
      if (reads_option(transport, name)) {
        readers.push_back(transport.name);
      }
    }
    usage_error("--" + name + " does not apply to the " + chosen.name + " transport" +
                (readers.empty() ? "" : " (it is an option of " + listed(readers) + ")"));
  }
}

// The transports of this build that `can` says can, in the registry's order: what a refusal
// names as the ones that can.
template <typename Can> std::vector<std::string> names_of(const Descriptors& transports, Can&& can)
{
  std::vector<std::string> names;
  for (const auto& transport : transports) {
    if (can(transport)) {
      names.push_back(transport.name);
    }
  }
  return names;
}

// Those whose descriptor sets `flag`.
std::vector<std::string> names_with(const Descriptors& transports, bool TransportFlags::*flag)
{
  return names_of(transports,
                  [flag](const TransportDescriptor& transport) { return transport.flags.*flag; });
}

// --threads with a transport that cannot run its pair as threads of one process; the message
// names those that can, as this build has them.
void check_threads_allowed(const TransportDescriptor& chosen, const Descriptors& transports)
{
  if (chosen.flags.threads) {
    return;
  }
  const std::vector<std::string> able = names_with(transports, &TransportFlags::threads);
  usage_error("--threads: the " + chosen.name +
              " transport cannot run its publisher and subscriber as threads of one process" +
              (able.empty() ? std::string() : " (" + listed(able) + " can)"));
}

// --payload-type struct or nested with a transport that moves opaque bytes: the message names
// it and those that serialize, as this build has them.
void check_payload_type(const TransportDescriptor& chosen, const Descriptors& transports,
                        PayloadType type)
{
  if (type == PayloadType::bytes || chosen.flags.typed_payloads) {
    return;
  }
  const std::vector<std::string> able = names_with(transports, &TransportFlags::typed_payloads);
  usage_error(
      std::string("--payload-type ") + to_string(type) + ": the " + chosen.name +
      " transport moves opaque bytes" +
      (able.empty() ? std::string() : " (only " + listed(able) + " serializes a typed sample)"));
}

// --fanout round-robin with a transport whose publisher can neither send to one subscriber
// alone nor have its medium deal them; the message names those that can, as this build has them.
void check_fanout(const TransportDescriptor& chosen, const Descriptors& transports, Fanout fanout)
{
  const auto deals = [](const TransportDescriptor& transport) {
    return transport.flags.sends_to_one || transport.flags.deals_in_turn;
  };
  if (fanout == Fanout::all || deals(chosen)) {
    return;
  }
  const std::vector<std::string> able = names_of(transports, deals);
  usage_error("--fanout round-robin: the " + chosen.name +
              " transport cannot send a message to one subscriber alone" +
              (able.empty() ? std::string() : " (" + listed(able) + " can)"));
}

// Run by hand, each stream's address is derived from the one given: with none (a default
// multicast group, a bare --shm), every publisher and topic would take the same one and share
// it. A local pair picks them, stream by stream.
void check_stream_address_given(const TransportDescriptor& chosen, const OptionValues& values,
                                const RunConfig& config)
{
  if (config.local_pair) {
    return;
  }
  std::string named;
  for (const OptionSpec& spec : chosen.options.options) {
    if (spec.stream == StreamRule::none) {
      continue;
    }
    for (const std::string& value : values.texts(spec)) {
      if (!value.empty()) {
        return;
      }
    }
    if (named.empty()) {
      named = (spec.short_name != '\0' ? std::string("-") + spec.short_name + "/" : "") + "--" +
              spec.long_name + " " + spec.value_name;
    }
  }
  const bool publishers = config.publishers > 1;
  usage_error((publishers ? "--publishers " + std::to_string(config.publishers)
                          : "--topics " + std::to_string(config.topics)) +
              ": give the " + chosen.name + " transport's " + named + ": each " +
              (publishers ? "publisher's" : "topic's") +
              " own is derived from it, and without it every one would take the same default");
}

// --publishers P or --topics T above 1 with a transport whose addresses have no stream for
// each; the message names those that have, as this build has them.
void check_streams(const TransportDescriptor& chosen, const Descriptors& transports,
                   const OptionValues& values, const RunConfig& config)
{
  if (config.publishers <= 1 && config.topics <= 1) {
    return;
  }
  if (has_streams(chosen.options)) {
    check_stream_address_given(chosen, values, config);
    return;
  }
  const std::vector<std::string> able =
      names_of(transports,
               [](const TransportDescriptor& transport) { return has_streams(transport.options); });
  const bool publishers = config.publishers > 1;
  usage_error((publishers ? "--publishers " + std::to_string(config.publishers)
                          : "--topics " + std::to_string(config.topics)) +
              ": the " + chosen.name + " transport has no address of its own for each " +
              (publishers ? "publisher" : "topic") +
              (able.empty() ? std::string() : " (" + listed(able) + " have)"));
}

} // namespace

TransportPlan plan_transport(const TransportRegistry& registry, const OptionValues& values,
                             const std::vector<OptionGroup>& core, RunConfig& config,
                             std::uint32_t stream)
{
  const Descriptors& transports = registry.entries();
  const bool threads = config.threads || config.pair_layout == PairLayout::threads;
  const TransportDescriptor& chosen = choose_transport(transports, values, config);
  check_options_read(chosen, transports, values, core);
  if (threads) {
    check_threads_allowed(chosen, transports);
  }
  check_payload_type(chosen, transports, config.payload_type);
  check_fanout(chosen, transports, config.fanout);
  check_streams(chosen, transports, values, config);
  // The local pair plans each process's transport arguments (or loopback defaults when none
  // were given), and each child plans its own with its role; --reliability and --history must
  // mean something for both roles. A wrong transport option (say, one -u where the pair needs
  // none or two) is reported before anything runs.
  PlanRequest request;
  request.values = values_for_stream(values, chosen.options, stream);
  request.role = config.local_pair ? PlanRole::local_pair
                                   : (config.role == Role::publisher ? PlanRole::publisher
                                                                     : PlanRole::subscriber);
  request.threads_of_one_process = threads;
  // A local group derives arguments for each of its subscribers (distinct ports, where a
  // subscriber binds its own).
  request.pair_subscribers = config.local_pair ? std::max<std::size_t>(config.subscribers, 1) : 1;
  request.pair_streams =
      config.local_pair ? std::size_t{config.publishers} * std::max(config.topics, 1u) : 1;
  request.endpoint = endpoint_request(config);
  TransportPlan plan = chosen.plan(request);
  config.transport_name = chosen.name;
  return plan;
}

EndpointRequest endpoint_request(const RunConfig& config)
{
  EndpointRequest request;
  request.role = config.role;
  request.id = config.id;
  request.queue_length_bytes = config.queue_length;
  request.message_size = wire::header_size + config.payload_size;
  request.header_bytes = wire::header_size;
  request.subscribers = config.subscribers;
  request.qos = config.qos;
  request.payload_type = config.payload_type;
  request.round_robin = config.fanout == Fanout::round_robin;
  return request;
}

} // namespace netprof::cli
