#include "mq_transport.hpp"

#include "abandoned_queues.hpp"
#include "kernel_limits.hpp"
#include "mq_endpoint.hpp"
#include "queue_names.hpp"

#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <iostream>
#include <optional>
#include <string>

namespace netprof {

namespace {

constexpr const char* name_help =
    "POSIX message queues: the publisher (-i 0) creates /netprof-NAME, to which its subscribers "
    "send hellos, echoes and final counters; each subscriber creates /netprof-NAME:ID, to which "
    "the publisher sends a copy of every message. Messages are at most fs.mqueue.msgsize_max "
    "bytes, header included. With --local-pair, --mq alone picks a unique NAME.";
constexpr const char* depth_help =
    "messages each queue holds (mq_maxmsg): at most fs.mqueue.msg_max (10 unless raised) "
    "without CAP_SYS_RESOURCE; each queue takes about N times fs.mqueue.msgsize_max bytes of "
    "the user's RLIMIT_MSGQUEUE (ulimit -q)";

const OptionGroup& mq_options()
{
  static const OptionGroup group{
      "POSIX message queues (one host)",
      {OptionSpec("mq", "NAME", Text{}, name_help).with_implicit("").passed(PairRoute::neither),
       OptionSpec("mq-depth", "N", WholeNumber{1, mq::hard_depth_limit}, depth_help)
           .with_default(std::to_string(mq::default_depth))}};
  return group;
}

// The mq options of a command line, parsed once, with the depth the kernel allows.
struct MqSettings {
  std::string name; // empty: none given (the local pair picks one)
  mq::KernelLimits limits;
  std::size_t depth = 0;
  std::string depth_note;
};

MqSettings parse_settings(const OptionValues& values)
{
  MqSettings settings;
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
EffectiveQos mq_qos(const MqSettings& settings, const EndpointRequest& request)
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

std::unique_ptr<Endpoint> open_mq(const MqSettings& given, const EndpointRequest& request)
{
  mq::EndpointSettings settings;
  settings.name = given.name;
  settings.limits = given.limits;
  settings.depth = given.depth;
  settings.depth_note = given.depth_note;
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
  const MqSettings settings = parse_settings(request.values);
  TransportPlan plan;
  plan_qos(plan, request,
           [&](const EndpointRequest& endpoint) { return mq_qos(settings, endpoint); });
  if (request.role == PlanRole::local_pair) {
    // Every process names the same run; each subscriber's -i names its own queue.
    const std::string name =
        settings.name.empty() ? transport_common::unique_pair_name() : settings.name;
    const std::vector<std::string> arguments = {"--mq", name};
    plan.local_pair = {arguments, std::vector(request.pair_subscribers, arguments), {}};
    plan.addresses = {name};
    if (settings.name.empty())
      plan.killed_pair_cleaner = remove_queues_of_killed_pairs;
    return plan;
  }
  if (settings.name.empty())
    throw UsageError("--mq needs a NAME (only --local-pair picks one itself)");
  plan.addresses = {settings.name};
  plan.opener = [settings](const EndpointRequest& endpoint) { return open_mq(settings, endpoint); };
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
          .flags = {.threads = true, .host_local = true},
          .remote_launch = std::nullopt,
          .plan = plan_mq};
}

} // namespace netprof
