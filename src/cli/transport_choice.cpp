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

// The one slot `picks` accepts; two are a conflict.
template <typename Picks> TransportSlot* the_only(std::vector<TransportSlot>& slots, Picks&& picks)
{
  TransportSlot* found = nullptr;
  for (auto& slot : slots) {
    if (!picks(*slot.transport)) {
      continue;
    }
    if (found != nullptr) {
      usage_error("conflicting transports: " + found->entry->name + " and " + slot.entry->name +
                  "; give only one");
    }
    found = &slot;
  }
  return found;
}

TransportSlot* find_slot(std::vector<TransportSlot>& slots, std::string_view name)
{
  for (auto& slot : slots) {
    if (slot.entry->name == name) {
      return &slot;
    }
  }
  return nullptr;
}

// The transport the command line chose: the one named (-u, -m, -b, --zmq, --shm); else the one
// a setting of its own selects (--mc-ttl, --zmq-nodrop, --shm-history); else the default.
// Two named, or two selected by settings alone, are a conflict. A setting beside another
// transport's name is not a second transport: check_options_read() refuses it by name.
TransportSlot& choose_transport(std::vector<TransportSlot>& slots, const RunConfig& config)
{
  if (auto* by_name = the_only(slots, [](const Transport& t) { return t.named(); })) {
    return *by_name;
  }
  if (auto* by_setting = the_only(slots, [](const Transport& t) { return t.selected(); })) {
    return *by_setting;
  }
  if (config.local_pair) {
    auto* udp = find_slot(slots, "udp");
    if (udp == nullptr) {
      usage_error("--local-pair needs a transport: this build has no udp (see --help)");
    }
    return *udp;
  }
  // MADARA's default: multicast on 239.255.0.1:4150, when this build has it.
  auto* multicast = find_slot(slots, "multicast");
  if (multicast == nullptr) {
    usage_error("no transport given: use -u host:port (see --help)");
  }
  return *multicast;
}

// Every option the user gave is read by the core or by the chosen transport: one that belongs
// to another transport (--fragment-size with --shm, --mc-ttl with -b) would otherwise be
// ignored without a word.
void check_options_read(const TransportSlot& chosen, const std::vector<TransportSlot>& slots,
                        const OptionValues& values, const std::vector<OptionGroup>& core)
{
  for (const GivenOption& option : values.in_order()) {
    const std::string& name = option.long_name;
    const bool core_reads = std::any_of(
        core.begin(), core.end(), [&](const OptionGroup& group) { return group.contains(name); });
    if (core_reads || chosen.transport->reads_option(name)) {
      continue;
    }
    std::vector<std::string> readers;
    for (const auto& slot : slots) {
      if (slot.transport->reads_option(name)) {
        readers.push_back(slot.entry->name);
      }
    }
    usage_error("--" + name + " does not apply to the " + chosen.entry->name + " transport" +
                (readers.empty() ? "" : " (it is an option of " + listed(readers) + ")"));
  }
}

// --threads with a transport that cannot run its pair as threads of one process; the message
// names those that can, as this build has them.
void check_threads_allowed(const TransportSlot& chosen, const std::vector<TransportSlot>& slots)
{
  if (chosen.transport->allows_threads()) {
    return;
  }
  std::vector<std::string> able;
  for (const auto& slot : slots) {
    if (slot.transport->allows_threads()) {
      able.push_back(slot.entry->name);
    }
  }
  usage_error("--threads: the " + chosen.entry->name +
              " transport cannot run its publisher and subscriber as threads of one process" +
              (able.empty() ? std::string() : " (" + listed(able) + " can)"));
}

// --reliability and --history mean something on the chosen transport for every role this
// command line runs (both for the local pair), or are refused now, before anything starts.
// The request is the one open() gets as far as the command line knows it: a transport's QoS
// may depend on -q and the message size (ZeroMQ's high-water mark), never on addresses.
void check_qos(const Transport& transport, const RunConfig& config)
{
  EndpointRequest request;
  request.id = config.id;
  request.queue_length_bytes = config.queue_length;
  request.message_size = wire::header_size + config.payload_size;
  request.header_bytes = wire::header_size;
  request.subscribers = config.subscribers;
  request.qos = config.qos;
  const std::vector<Role> roles = config.local_pair
                                      ? std::vector<Role>{Role::publisher, Role::subscriber}
                                      : std::vector<Role>{config.role};
  for (const Role role : roles) {
    request.role = role;
    transport.effective_qos(request);
  }
}

} // namespace

std::vector<TransportSlot> make_transports(const TransportRegistry& registry)
{
  std::vector<TransportSlot> slots;
  for (const TransportEntry& entry : registry.entries()) {
    slots.push_back({&entry, entry.make()});
  }
  return slots;
}

std::unique_ptr<Transport> select_transport(std::vector<TransportSlot>& slots,
                                            const OptionValues& values,
                                            const std::vector<OptionGroup>& core, RunConfig& config)
{
  const bool threads = config.threads || config.pair_layout == PairLayout::threads;
  for (auto& slot : slots) {
    slot.transport->set_option_values(values);
    slot.transport->set_threads_of_one_process(threads);
  }
  TransportSlot& chosen = choose_transport(slots, config);
  check_options_read(chosen, slots, values, core);
  if (threads) {
    check_threads_allowed(chosen, slots);
  }
  if (config.local_pair) {
    // The local pair derives each process's transport arguments (or loopback defaults when
    // none were given), and each child validates its own with its role. Asking now reports a
    // wrong transport option (say, one -u where the pair needs none or two) before anything
    // runs. Not validate(publisher): the pair may leave the publisher's port to netprof
    // (tcp://127.0.0.1:*), which a lone publisher may not.
    chosen.transport->local_pair_arguments();
  } else {
    chosen.transport->validate(config.role);
  }
  check_qos(*chosen.transport, config);
  config.transport_name = chosen.entry->name;
  return std::move(chosen.transport);
}

} // namespace netprof::cli
