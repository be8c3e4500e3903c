#pragma once

// What a transport works out from a command line, once: its plan. A transport's descriptor
// (registry.hpp) names a pure function plan(PlanRequest) -> TransportPlan that parses the
// transport's options, refuses what cannot run (UsageError, one line), and returns a value the
// core only reads: the QoS each role will have, what a local pair passes to each process, and
// how to open an endpoint with the settings it parsed. Nothing is parsed again after plan().

#include <netprof/options.hpp>
#include <netprof/qos.hpp>
#include <netprof/transport.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
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

// Whom a plan is for: one process of either role, or a local pair as a whole (which derives
// each process's arguments and runs both roles).
enum class PlanRole { publisher, subscriber, local_pair };

struct PlanRequest {
  OptionValues values; // every group's options, as the user gave them
  PlanRole role = PlanRole::publisher;
  // The pair runs as threads of this one process (--local-pair --threads): a transport may then
  // accept what joins threads of one process only (ZeroMQ's inproc://).
  bool threads_of_one_process = false;
  // What the core knows of the endpoints it will open (-q, message and header sizes,
  // --subscribers, --reliability and --history); its role is set per role planned.
  EndpointRequest endpoint;
  // Local pair: the subscribers on this host to derive arguments for (the pair itself: 1).
  std::size_t pair_subscribers = 1;
  // Local pair: its streams (--publishers times --topics), each of which moves the ports it
  // is given up by its number; a port the pair picks is the first of this many free in a row.
  std::size_t pair_streams = 1;

  // The roles whose endpoints this plan opens: one, or both for the local pair.
  std::vector<Role> roles() const
  {
    if (role == PlanRole::local_pair)
      return {Role::publisher, Role::subscriber};
    return {role == PlanRole::publisher ? Role::publisher : Role::subscriber};
  }
  // `endpoint` for the one role of a single-role plan.
  Role single_role() const
  {
    return role == PlanRole::subscriber ? Role::subscriber : Role::publisher;
  }
};

// What a local pair passes to each of its processes, from what the user gave or loopback
// defaults (fresh free ports and names on each plan). The options a transport declares with
// another PairRoute are forwarded as the user gave them, beside these.
struct LocalPairPlan {
  std::vector<std::string> publisher;
  std::vector<std::vector<std::string>> subscribers;
  std::vector<std::string> files; // what a killed pair may leave behind, to remove after it

  // The pair itself: the publisher and its one subscriber.
  LocalPairArguments pair() const { return {publisher, subscribers.at(0)}; }
};

// A transport's plan: immutable once plan() returned it. The function members are closures
// over the settings plan() parsed; a transport leaves empty what it does not need.
struct TransportPlan {
  // The addresses this plan binds, joins or reaches, as the user reads them (for a local pair:
  // the publisher's).
  std::vector<std::string> addresses;
  // What --reliability and --history mean here for each planned role, defaults included,
  // which the report states (EffectiveQos::requested is left for the core to fill).
  std::optional<EffectiveQos> publisher_qos;
  std::optional<EffectiveQos> subscriber_qos;
  // Local pair only: the arguments of each process.
  LocalPairPlan local_pair;

  // Opens an endpoint of a planned role with the parsed settings. Throws TransportError when
  // the system refuses (bind failed...).
  std::function<std::unique_ptr<Endpoint>(const EndpointRequest&)> opener;
  // Local pair, before it starts its processes (never a query such as --list-transports):
  // removes what earlier pairs left when they were killed outright (shm's segments).
  std::function<void()> killed_pair_cleaner;
  // Local pair (and the contract test), after the clean-up: starts what the pair's processes
  // need on this host besides themselves, or finds it running (RouDi). Throws TransportError.
  std::function<std::unique_ptr<PairService>()> pair_service_starter;

  const EffectiveQos& qos(Role role) const
  {
    return (role == Role::publisher ? publisher_qos : subscriber_qos).value();
  }
  std::unique_ptr<Endpoint> open(const EndpointRequest& request) const { return opener(request); }
  void clean_up_after_killed_pairs() const
  {
    if (killed_pair_cleaner)
      killed_pair_cleaner();
  }
  // Null when the transport needs nothing (most).
  std::unique_ptr<PairService> start_pair_service() const
  {
    return pair_service_starter ? pair_service_starter() : nullptr;
  }
};

// Fills the plan's QoS for every role the request plans, from the transport's mapping
// `qos_of` (EffectiveQos(const EndpointRequest&), which throws UsageError to refuse).
template <typename QosOf>
void plan_qos(TransportPlan& plan, const PlanRequest& request, QosOf&& qos_of)
{
  for (const Role role : request.roles()) {
    EndpointRequest endpoint = request.endpoint;
    endpoint.role = role;
    (role == Role::publisher ? plan.publisher_qos : plan.subscriber_qos) = qos_of(endpoint);
  }
}

} // namespace netprof
