#pragma once

// How a transport whose local pair picks its own addresses (free loopback ports, socket
// files) plans a run: the QoS of every role, then either the pair's arguments or, for one
// process, the addresses it uses and how to open its endpoint there.

#include <netprof/transport_plan.hpp>

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

} // namespace netprof::transport_common
