#pragma once

// A transport given a command line as netprof's parser gives it: the arguments are parsed
// against the transport's own option group (and `also`, the groups of options it reads from
// elsewhere, such as udp::tuning_options() for multicast), and each question is answered by
// planning, as the command line and the local pair plan.

#include <netprof/options.hpp>
#include <netprof/registry.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace netprof::testing {

class PlannedTransport {
public:
  PlannedTransport(TransportDescriptor descriptor, const std::vector<std::string>& arguments,
                   std::vector<const OptionGroup*> also = {})
      : m_descriptor(std::move(descriptor))
  {
    also.insert(also.begin(), &m_descriptor.options);
    m_values = parse_options(arguments, also);
  }
  // Values parsed already, against every group of `all` (the registry it is chosen from).
  PlannedTransport(TransportDescriptor descriptor, OptionValues values,
                   std::vector<TransportDescriptor> all)
      : m_descriptor(std::move(descriptor)), m_values(std::move(values)), m_all(std::move(all))
  {
  }

  const TransportDescriptor& descriptor() const noexcept { return m_descriptor; }
  const OptionValues& values() const noexcept { return m_values; }
  void set_threads_of_one_process(bool threads) noexcept { m_threads = threads; }

  // The plan for `role`, knowing of its endpoints what `endpoint` says (its role is set).
  TransportPlan plan(PlanRole role, EndpointRequest endpoint = {},
                     std::size_t pair_subscribers = 1) const
  {
    PlanRequest request;
    request.values = m_values;
    request.role = role;
    request.threads_of_one_process = m_threads;
    request.endpoint = endpoint;
    request.pair_subscribers = pair_subscribers;
    return m_descriptor.plan(request);
  }
  TransportPlan plan_for(Role role) const { return plan(plan_role(role)); }

  LocalPairArguments pair() const { return plan(PlanRole::local_pair).local_pair.pair(); }
  LocalPairPlan pair_plan(std::size_t subscribers) const
  {
    return plan(PlanRole::local_pair, {}, subscribers).local_pair;
  }
  EffectiveQos qos(const EndpointRequest& request) const
  {
    return plan(plan_role(request.role), request).qos(request.role);
  }
  std::unique_ptr<Endpoint> open(const EndpointRequest& request) const
  {
    return plan(plan_role(request.role), request).open(request);
  }

  bool selected() const { return netprof::selected(m_descriptor, m_all, m_values); }
  bool named() const { return netprof::named(m_descriptor, m_values); }
  bool reads_option(const std::string& long_name) const
  {
    return netprof::reads_option(m_descriptor, long_name);
  }

  static PlanRole plan_role(Role role)
  {
    return role == Role::publisher ? PlanRole::publisher : PlanRole::subscriber;
  }

private:
  TransportDescriptor m_descriptor;
  OptionValues m_values;
  std::vector<TransportDescriptor> m_all;
  bool m_threads = false;
};

inline std::unique_ptr<PlannedTransport> planned(TransportDescriptor descriptor,
                                                 const std::vector<std::string>& arguments,
                                                 std::vector<const OptionGroup*> also = {})
{
  return std::make_unique<PlannedTransport>(std::move(descriptor), arguments, std::move(also));
}

} // namespace netprof::testing
