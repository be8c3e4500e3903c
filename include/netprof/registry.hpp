#pragma once

// A transport is a descriptor (this file: data the command line, --help, the local pair and
// scripts read) and a plan (transport_plan.hpp: what it works out from a command line, once).
// Every built-in transport is registered in one function, register_builtin_transports();
// adding a transport touches its own folder plus one line there.

#include <netprof/options.hpp>
#include <netprof/transport_plan.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace netprof {

// What a transport can do, as the local pair, --help and scripts (--list-transports --json)
// need to know before anything is planned.
struct TransportFlags {
  // A local pair may run as two threads of one process (--local-pair --threads), each with an
  // endpoint of its own: nothing it keeps per process (a signal handler, a name made of the
  // process id, a shared library's state) is used by both in a way that only works across
  // processes. The command line refuses --threads with a transport that leaves this false.
  bool threads = false;
  // A run stays on one host only inside a network namespace of its own with nothing but lo
  // (multicast and broadcast reach every process that joined or bound, whatever started it).
  bool private_netns = false;
  // Its processes need a service on this host besides themselves (RouDi): the plan starts it.
  bool pair_service = false;
  // It reaches processes of this host only (shared memory, message queues, Unix sockets).
  bool host_local = false;
  // It serializes samples of a type (DDS), so --payload-type struct and nested can give the
  // payload a form of its own; without it the transport moves opaque bytes and refuses them.
  bool typed_payloads = false;
  // Its publisher can send a data message to one subscriber alone (PeerSender), so
  // --fanout round-robin deals messages out in turn; without it the option is refused.
  bool sends_to_one = false;
  // Its publisher can have the medium deal each data message to one subscriber (MessageDealer:
  // NNG's push0), so --fanout round-robin runs with loss counted in total, not per subscriber.
  bool deals_in_turn = false;
};

// How a launcher starts this transport's processes on different hosts: each role's transport
// arguments, as templates whose placeholders "{own}" (this host's address:port),
// "{publisher}" (the publisher's address:port) and "{broker}" (the HOST:PORT of the broker every
// role goes through, which the launcher's hosts file names) the launcher fills in.
struct RemoteLaunch {
  std::vector<std::string> publisher;
  std::vector<std::string> subscriber;
};

struct TransportDescriptor {
  std::string name;    // "udp"
  std::string summary; // one line for --help
  // Its own options, shown in --help under its name: each option's flag, kind and range, help,
  // and how the local pair passes it on. The first names the transport (-m for multicast).
  OptionGroup options;
  // The long names of options shown in another transport's group that it reads too (the
  // options every UDP mode shares, shown under udp).
  std::vector<std::string> also_reads;
  TransportFlags flags;
  // Empty when it cannot run across hosts (it runs on one host only).
  std::optional<RemoteLaunch> remote_launch;
  // Pure: parses the options once and returns the plan, or throws UsageError naming what
  // cannot run. May pick free ports and fresh names for a local pair (TransportError when the
  // system has none).
  std::function<TransportPlan(const PlanRequest&)> plan;
};

// True when the user gave the option that names this transport (-m for multicast), not just
// one of its settings (--mc-ttl): the first option of its group. A transport named beside
// another one is a conflict; one that is only selected by a setting beside another
// transport's name is not chosen, and the setting is refused as an option that does not apply.
inline bool named(const TransportDescriptor& transport, const OptionValues& values)
{
  return values.given(transport.options.options.front().long_name);
}

// True when this transport reads the option of this long name when it is chosen: its own and
// those it also reads. The command line refuses every option the user gave that neither the
// core nor the chosen transport reads, so no option is silently ignored.
inline bool reads_option(const TransportDescriptor& transport, const std::string& long_name)
{
  return transport.options.contains(long_name) ||
         std::find(transport.also_reads.begin(), transport.also_reads.end(), long_name) !=
             transport.also_reads.end();
}

// True when the user gave an option that selects this transport: one of its own group that no
// other of `all` reads (-m or --mc-ttl for multicast, --zmq-nodrop for zmq; the options every
// UDP mode shares, shown under udp, select none of them).
inline bool selected(const TransportDescriptor& transport,
                     const std::vector<TransportDescriptor>& all, const OptionValues& values)
{
  const std::vector<OptionSpec>& own = transport.options.options;
  return std::any_of(own.begin(), own.end(), [&](const OptionSpec& spec) {
    const bool shared = std::any_of(all.begin(), all.end(), [&](const auto& other) {
      return other.name != transport.name && reads_option(other, spec.long_name);
    });
    return !shared && values.given(spec.long_name);
  });
}

class TransportRegistry {
public:
  void add(TransportDescriptor descriptor) { m_entries.push_back(std::move(descriptor)); }
  const std::vector<TransportDescriptor>& entries() const noexcept { return m_entries; }

private:
  std::vector<TransportDescriptor> m_entries;
};

// Defined in transports/builtin.cpp: one line per built-in transport.
void register_builtin_transports(TransportRegistry& registry);

} // namespace netprof
