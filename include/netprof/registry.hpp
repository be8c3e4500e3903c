#pragma once

// Every built-in transport is registered in one function, register_builtin_transports().
// --help and the list of transports come from here; adding a transport touches its own
// folder plus one line there.

#include <netprof/options.hpp>
#include <netprof/transport.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace netprof {

// A service that a transport's processes on this host need while they run, outside netprof
// (iceoryx's broker, RouDi): started by a local pair before its members and stopped after them.
// Destroying it stops it too.
class PairService {
public:
  virtual ~PairService() = default;
  // Stops it (only if this process started it). Returns what went wrong while the pair ran
  // (it ended early, say), for one line of output; empty when nothing did.
  virtual std::string stop() noexcept = 0;
};

// A transport as the command line sees it: its own option group and how to open it.
// One instance per process; it keeps the values the user gave.
class Transport {
public:
  virtual ~Transport() = default;

  // This transport's option group, shown in --help under its name: each option's flag, kind
  // and range, help, and how the local pair passes it on. The command line declares, parses
  // and forwards them; the transport reads their values through option_values().
  virtual const OptionGroup& options() const = 0;

  // Hands over what the user gave (every group's options, not only this one's). Called once,
  // after parsing and before selected(); until then the transport sees only defaults.
  void set_option_values(OptionValues values) { m_values = std::move(values); }

  // True when the user gave an option that selects this transport: by default any option of
  // its own group (-m or --mc-ttl for multicast, --zmq-nodrop for zmq).
  virtual bool selected() const
  {
    const std::vector<OptionSpec>& own = options().options;
    return std::any_of(own.begin(), own.end(),
                       [&](const OptionSpec& spec) { return m_values.given(spec.long_name); });
  }

  // True when the user gave the option that names this transport (-m for multicast), not just
  // one of its settings (--mc-ttl): the first option of its group. A transport named beside
  // another one is a conflict; one that is only selected by a setting beside another
  // transport's name is not chosen, and the setting is refused as an option that does not
  // apply.
  virtual bool named() const { return m_values.given(options().options.front().long_name); }

  // True when this transport reads the option of this long name ("fragment-size") when it is
  // chosen. The command line refuses every option the user gave that neither the core nor the
  // chosen transport reads, so no option is silently ignored. Defaults to the options of its
  // own group; a transport that also reads options shown in another's group says so.
  virtual bool reads_option(const std::string& long_name) const
  {
    return options().contains(long_name);
  }

  // Checks the values of its own options once parsing is done; throws UsageError with one
  // line naming the problem.
  virtual void validate(Role role) const = 0;

  // What --reliability and --history (request.qos, maybe empty) mean on this transport for an
  // endpoint opened with `request`: the QoS it will have, defaults included, which the report
  // states. Throws UsageError with one line saying why when the request has no meaning here or
  // contradicts the transport's own options. Pure logic on the request and the option values,
  // so the command line asks it before anything runs and open() asks it again to apply it.
  virtual EffectiveQos effective_qos(const EndpointRequest& request) const = 0;

  // Opens an endpoint. Throws TransportError when the system refuses (bind failed...).
  virtual std::unique_ptr<Endpoint> open(const EndpointRequest& request) = 0;

  // The arguments this transport derives for a publisher and `subscribers` subscribers on
  // this host: its addresses, from what the user gave or loopback defaults (fresh free ports
  // and names on each call). The options it declares with another PairRoute are forwarded as
  // the user gave them. Checks the values it reads, so a bad one is reported before any
  // process starts. Throws UsageError.
  struct LoopbackArguments {
    std::vector<std::string> publisher;
    std::vector<std::vector<std::string>> subscribers;
    std::vector<std::string> files; // what a killed run may leave behind, to remove after it
  };
  virtual LoopbackArguments loopback_arguments(std::size_t subscribers) const = 0;

  // The one-command local pair: a publisher and one subscriber, as two processes (or threads).
  using LocalPairArguments = netprof::LocalPairArguments;
  LocalPairArguments local_pair_arguments() const
  {
    LoopbackArguments loopback = loopback_arguments(1);
    return {std::move(loopback.publisher), std::move(loopback.subscribers.at(0))};
  }

  // Called by the local pair before it starts its processes, never by a query such as
  // --list-transports: a transport may remove what earlier pairs left when they were killed
  // outright (shm removes their segments, whose names are never used again).
  virtual void clean_up_after_killed_pairs() const {}

  // Starts what the processes of a local pair need on this host besides themselves, or finds
  // it already running; null when the transport needs nothing (most). Called by the local pair
  // (and the contract test) after clean_up_after_killed_pairs(), never by a query. Throws
  // TransportError when it cannot be had.
  virtual std::unique_ptr<PairService> start_pair_service() const { return nullptr; }

  // True when a run of this transport can be kept to one host only inside a network namespace
  // of its own, with nothing but lo (multicast and broadcast reach every process that joined
  // or bound, whatever started it). Scripts read it from --list-transports --json.
  virtual bool needs_private_netns() const { return false; }

  // True when a local pair of this transport may run as two threads of one process
  // (--local-pair --threads), each thread with an endpoint of its own: nothing the transport
  // keeps per process (a signal handler, a name made of the process id, a shared library's
  // state) is used by both endpoints in a way that only works across processes. Checked by
  // the command line, which refuses --threads with a transport that leaves this false.
  virtual bool allows_threads() const { return false; }

  // Tells the transport that its publisher and subscriber are threads of this one process
  // (--local-pair --threads), before validate(), loopback_arguments() and open(): it may then
  // accept what joins threads of one process only (ZeroMQ's inproc://).
  void set_threads_of_one_process(bool threads) noexcept { m_threads_of_one_process = threads; }

protected:
  const OptionValues& option_values() const noexcept { return m_values; }
  bool threads_of_one_process() const noexcept { return m_threads_of_one_process; }

private:
  OptionValues m_values;
  bool m_threads_of_one_process = false;
};

struct TransportEntry {
  std::string name;    // "udp"
  std::string summary; // one line for --help
  std::function<std::unique_ptr<Transport>()> make;
};

class TransportRegistry {
public:
  void add(TransportEntry entry) { m_entries.push_back(std::move(entry)); }
  const std::vector<TransportEntry>& entries() const noexcept { return m_entries; }

private:
  std::vector<TransportEntry> m_entries;
};

// Defined in transports/builtin.cpp: one line per built-in transport.
void register_builtin_transports(TransportRegistry& registry);

} // namespace netprof
