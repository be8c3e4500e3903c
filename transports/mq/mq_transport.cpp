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

class MqTransport final : public Transport {
public:
  const OptionGroup& options() const override { return mq_options(); }

  // An empty NAME is allowed here because the local pair validates before it picks one;
  // open() refuses it.
  void validate(Role) const override
  {
    if (const std::string name = run_name(); !name.empty())
      mq::check_run_name(name);
    std::string note;
    mq::choose_depth(requested_depth(), mq::KernelLimits::read(), note);
  }

  // The depth is the subscriber's queue, at which the publisher waits (mq_timedsend on a full
  // queue): keep-all bounded by the kernel, never a message dropped.
  EffectiveQos effective_qos(const EndpointRequest& request) const override
  {
    EffectiveQos effective = qos::always_reliable(
        request.qos, "mq",
        "a POSIX message queue never drops a message: a full queue pushes back on the "
        "publisher, which waits (it is reliable and keeps all; --mq-depth sets the queue)",
        "each subscriber's queue holds --mq-depth messages; when a reader lags and it is "
        "full the publisher waits");
    std::string note;
    effective.depth = mq::choose_depth(requested_depth(), mq::KernelLimits::read(), note);
    return effective;
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    mq::EndpointSettings settings;
    settings.name = run_name();
    if (settings.name.empty())
      throw UsageError("--mq needs a NAME (only --local-pair picks one itself)");
    mq::check_run_name(settings.name);
    settings.limits = mq::KernelLimits::read();
    settings.depth = mq::choose_depth(requested_depth(), settings.limits, settings.depth_note);
    settings.requested_bytes = request.queue_length_bytes;
    if (request.role == Role::publisher)
      return std::make_unique<mq::PublisherEndpoint>(std::move(settings),
                                                     request.largest_control_message);
    return std::make_unique<mq::SubscriberEndpoint>(std::move(settings), request.id);
  }

  // Each endpoint opens its own queue descriptors (and flock's open file descriptions), so
  // two roles in one process hold nothing in common.
  bool allows_threads() const override { return true; }

  // Every process names the same run; each subscriber's -i names its own queue.
  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    validate(Role::publisher);
    const std::string given = run_name();
    const std::string name = given.empty() ? transport_common::unique_pair_name() : given;
    const std::vector<std::string> arguments = {"--mq", name};
    return {arguments, std::vector(subscribers, arguments), {}};
  }

  // A pair's queues have a name of their own, never created again: those of a pair killed
  // outright would stay until reboot, taking their share of RLIMIT_MSGQUEUE, unless a later
  // pair removes them.
  void clean_up_after_killed_pairs() const override
  {
    if (!run_name().empty())
      return;
    const std::string prefix = std::string("netprof-") + transport_common::pair_prefix;
    for (const std::string& queue : mq::remove_abandoned_queues(prefix))
      std::cerr << ("netprof: removed message queue " + queue +
                    ", left by a local pair that was killed\n");
  }

private:
  std::string run_name() const { return option_values().text(mq_options()["mq"]).value_or(""); }

  // Unset: the default depth, lowered to what the kernel allows.
  std::optional<std::size_t> requested_depth() const
  {
    const OptionSpec& spec = mq_options()["mq-depth"];
    if (!option_values().given(spec.long_name))
      return std::nullopt;
    return static_cast<std::size_t>(option_values().whole_number(spec).value_or(0));
  }
};

} // namespace

std::unique_ptr<Transport> make_mq_transport()
{
  return std::make_unique<MqTransport>();
}

} // namespace netprof
