#pragma once

// How a transport whose local pair picks its own addresses (free loopback ports, socket
// files, fresh names) plans a run: the QoS of every role, then either the pair's arguments or,
// for one process, the addresses it uses and how to open its endpoint there.

#include <netprof/transport_plan.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace netprof::transport_common {

// One process's part of a plan: the addresses as the report names them, and its opener.
struct SingleRolePlan {
  std::vector<std::string> addresses;
  decltype(TransportPlan::opener) opener;
};

// Only the branch the request plans is called, after the QoS, so that a QoS the transport
// refuses is reported before any address. A pair's reported address is its publisher's, the
// value of its first argument.
template <typename QosOf, typename PairOf, typename SingleOf>
TransportPlan plan_pair_or_single(const PlanRequest& request, QosOf&& qos_of, PairOf&& pair_of,
                                  SingleOf&& single_of)
{
  TransportPlan plan;
  plan_qos(plan, request, std::forward<QosOf>(qos_of));
  if (request.role == PlanRole::local_pair) {
    plan.local_pair = pair_of();
    plan.addresses = {plan.local_pair.publisher.at(1)};
    return plan;
  }
  SingleRolePlan single = single_of();
  plan.addresses = std::move(single.addresses);
  plan.opener = std::move(single.opener);
  return plan;
}

// A transport whose processes all meet at one NAME (--shm NAME, --mq NAME, --iceoryx NAME):
// its local pair gives every process `flag NAME`, the name given or, when none was (empty), a
// fresh one of the pair's own (unique_pair_name), by which a later pair knows what a killed
// one left behind.
LocalPairPlan same_name_pair(const std::string& flag, const std::string& given,
                             std::size_t subscribers);

// The NAME a single process meets at. Throws UsageError when none was given: only a local pair
// picks one itself.
const std::string& required_name(const std::string& flag, const std::string& given);

} // namespace netprof::transport_common
