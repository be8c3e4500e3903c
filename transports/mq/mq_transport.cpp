#include "mq_transport.hpp"

#include "abandoned_queues.hpp"
#include "kernel_limits.hpp"
#include "mq_endpoint.hpp"
#include "queue_names.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/pair_names.hpp"

#include <iostream>
#include <optional>
#include <string>

namespace netprof {

namespace {

constexpr const char* name_help =
    "POSIX message queues: the publisher (-i 0) creates /netprof-NAME, to which its subscribers "
    "send hellos, echoes and final counters; each subscriber creates /netprof-NAME:ID, to which "
    "the publisher sends a copy of every message. Messages are at most fs.mqueue.msgsize_max "
    "bytes, header included. With --local-pair, --mq alone picks a unique NAME. Under "
    "--publishers, publisher k (k >= 1) uses NAME.k.";
constexpr const char* depth_help =
    "messages each queue holds (mq_maxmsg): at most fs.mqueue.msg_max (10 unless raised) "
    "without CAP_SYS_RESOURCE; each queue takes about N times fs.mqueue.msgsize_max bytes of "
    "the user's RLIMIT_MSGQUEUE (ulimit -q)";

const OptionGroup& mq_options()
{
  static const OptionGroup group{
      "POSIX message queues (one host)",
      {transport_common::naming_option("mq", "NAME", name_help).per_stream(StreamRule::name_suffix),
       OptionSpec("mq-depth", "N", WholeNumber{1, mq::hard_depth_limit}, depth_help)
           .with_default(std::to_string(mq::default_depth))}};
  return group;
}

// The mq options of a command line, parsed once, with the depth the kernel allows: the
// endpoint's settings but for what the core asks at opening. An empty name: none given (the
// local pair picks one).
mq::EndpointSettings parse_settings(const OptionValues& values)
{
  mq::EndpointSettings settings;
  settings.name = values.text(mq_options()["mq"]).value_or("");
  if (!settings.name.empty())
    mq::check_run_name(settings.name);
  // Unset: the default depth, lowered to what the kernel allows.
  const OptionSpec& spec = mq_options()["mq-depth"];
  std::optional<std::size_t> requested;
  if (values.given(spec.long_name))
    requested = static_cast<std::size_t>(values.whole_number(spec).value_or(0));
  settings.limits = mq::KernelLimits::read();
  settings.depth = mq::choose_depth(requested, settings.limits, settings.depth_note);
  return settings;
}

// The depth is the subscriber's queue, at which the publisher waits (mq_timedsend on a full
// queue): keep-all bounded by the kernel, never a message dropped.
EffectiveQos mq_qos(const mq::EndpointSettings& settings, const EndpointRequest& request)
{
  EffectiveQos effective = qos::always_reliable(
      request.qos, "mq",
      "a POSIX message queue never drops a message: a full queue pushes back on the "
      "publisher, which waits (it is reliable and keeps all; --mq-depth sets the queue)",
      "each subscriber's queue holds --mq-depth messages; when a reader lags and it is "
      "full the publisher waits");
  effective.depth = settings.depth;
  return effective;
}

std::unique_ptr<Endpoint> open_mq(mq::EndpointSettings settings, const EndpointRequest& request)
{
  settings.requested_bytes = request.queue_length_bytes;
  if (request.role == Role::publisher)
    return std::make_unique<mq::PublisherEndpoint>(std::move(settings),
                                                   request.largest_control_message);
  return std::make_unique<mq::SubscriberEndpoint>(std::move(settings), request.id);
}

// A pair's queues have a name of their own, never created again: those of a pair killed
// outright would stay until reboot, taking their share of RLIMIT_MSGQUEUE, unless a later
// pair removes them.
void remove_queues_of_killed_pairs()
{
  const std::string prefix = std::string("netprof-") + transport_common::pair_prefix;
  for (const std::string& queue : mq::remove_abandoned_queues(prefix))
    std::cerr << ("netprof: removed message queue " + queue +
                  ", left by a local pair that was killed\n");
}

TransportPlan plan_mq(const PlanRequest& request)
{
  const mq::EndpointSettings settings = parse_settings(request.values);
  TransportPlan plan = transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return mq_qos(settings, endpoint); },
      // Every process names the same run; each subscriber's -i names its own queue.
      [&] {
        return transport_common::same_name_pair("--mq", settings.name, request.pair_subscribers);
      },
      [&]() -> transport_common::SingleRolePlan {
        return {
            {transport_common::required_name("--mq", settings.name)},
            [settings](const EndpointRequest& endpoint) { return open_mq(settings, endpoint); }};
      });
  if (request.role == PlanRole::local_pair && settings.name.empty())
    plan.killed_pair_cleaner = remove_queues_of_killed_pairs;
  return plan;
}

} // namespace

TransportDescriptor mq_transport()
{
  return {.name = "mq",
          .summary = "POSIX message queues on this host: --mq NAME",
          .options = mq_options(),
          .also_reads = {},
          // Each endpoint opens its own queue descriptors (and flock's open file
          // descriptions), so two roles in one process hold nothing in common.
          .flags = {.threads = true, .host_local = true, .sends_to_one = true},
          .remote_launch = std::nullopt,
          .plan = plan_mq};
}

} // namespace netprof
