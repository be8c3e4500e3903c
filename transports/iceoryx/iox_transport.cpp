#include "iox_transport.hpp"

#include "iox_endpoint.hpp"
#include "iox_qos.hpp"
#include "roudi.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <optional>

namespace netprof {

namespace {

using iox_parts::QueueFull;

// iceoryx's IdString_t holds 100 characters.
constexpr std::size_t max_name_length = 100;
// How long a local pair waits for the iox-roudi it starts to answer.
constexpr auto roudi_ready_within = std::chrono::milliseconds(10000);

const OptionGroup& iceoryx_options()
{
  static const OptionGroup group{
      "iceoryx (one host, through RouDi)",
      {transport_common::naming_option(
           "iceoryx", "NAME",
           "iceoryx 2 services netprof/NAME/data and netprof/NAME/back, through the "
           "shared memory of the RouDi running on this host: data messages are written "
           "into loaned chunks and read where they lie, no copy (iox-roudi: "
           "start it first; --local-pair starts one when none runs). With --local-pair, "
           "--iceoryx alone picks a unique NAME. -q sets the subscriber's queue, in "
           "messages of -s (at most 256). Under --publishers and --topics stream k's "
           "NAME is NAME.k")
           .per_stream(StreamRule::name_suffix),
       OptionSpec("iox-queue-full", "discard|block", Choice{{"discard", "block"}},
                  "when a subscriber's queue is full: discard (default) drops its oldest "
                  "message, counted as loss; block makes the publisher wait for it. Give every "
                  "process the same")
           .with_default("discard")}};
  return group;
}

void check_name(const std::string& name)
{
  if (!transport_common::is_plain_name(name) || name.size() > max_name_length)
    throw UsageError("bad --iceoryx value '" + name +
                     "': expected a name of 1 to 100 letters, digits, '.', '_' or '-' (not "
                     "starting with '.')");
}

// The iceoryx options of a command line, parsed once.
struct IoxSettings {
  std::string name; // empty: none given (the local pair picks one)
  QueueFull queue_full = QueueFull::discard;
  bool queue_full_given = false;
};

IoxSettings parse_settings(const OptionValues& values)
{
  IoxSettings settings;
  settings.name = values.text(iceoryx_options()["iceoryx"]).value_or("");
  if (!settings.name.empty())
    check_name(settings.name);
  const auto chosen = values.choice(iceoryx_options()["iox-queue-full"]);
  settings.queue_full = chosen && *chosen == 1 ? QueueFull::block : QueueFull::discard;
  settings.queue_full_given = values.given("iox-queue-full");
  return settings;
}

// --iox-queue-full and -q as the queue, with --reliability and --history mapped onto them:
// reliable (keep-all) blocks the publisher, best-effort (keep-last) discards the oldest, and
// keep-last:N is the queue's capacity. Given beside a --iox-queue-full they contradict, they
// are refused.
iox_parts::Qos iox_qos(const IoxSettings& settings, const EndpointRequest& request)
{
  constexpr std::uint64_t most = iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY;
  iox_parts::Qos chosen;
  chosen.queue_full = settings.queue_full;
  if (const std::optional<bool> waits = qos::publisher_waits(request.qos, "iceoryx")) {
    const QueueFull wanted = *waits ? QueueFull::block : QueueFull::discard;
    if (settings.queue_full_given && wanted != chosen.queue_full)
      throw UsageError(to_string(request.qos) + " contradicts --iox-queue-full " +
                       iox_parts::queue_full_name(chosen.queue_full) + ": give one of them");
    chosen.queue_full = wanted;
  }
  chosen.queue_capacity = iox_parts::queue_capacity_for(request.queue_length_bytes,
                                                        request.message_size_or_default(), most);
  if (request.qos.history && request.qos.history->depth) {
    const std::uint64_t depth = *request.qos.history->depth;
    if (depth > most)
      qos::refuse(qos::history_option(*request.qos.history), "iceoryx",
                  "a subscriber's queue holds at most " + std::to_string(most) + " messages");
    chosen.queue_capacity = depth;
  }
  return chosen;
}

EffectiveQos effective_qos(const IoxSettings& settings, const EndpointRequest& request)
{
  const iox_parts::Qos chosen = iox_qos(settings, request);
  const bool blocks = chosen.queue_full == QueueFull::block;
  EffectiveQos effective;
  effective.reliability = blocks ? Reliability::reliable : Reliability::best_effort;
  effective.history = blocks ? HistoryKind::keep_all : HistoryKind::keep_last;
  effective.depth = chosen.queue_capacity;
  effective.set_by = QosSetBy::every_process;
  effective.meaning = blocks ? "--iox-queue-full block: the publisher waits in publish() for a "
                               "subscriber whose queue is full"
                             : "--iox-queue-full discard: a full subscriber queue loses its "
                               "oldest message, counted as loss";
  effective.requested = request.qos;
  return effective;
}

std::unique_ptr<Endpoint> open_iceoryx(const IoxSettings& settings, const EndpointRequest& request)
{
  return std::make_unique<iox_parts::IoxEndpoint>(
      iox_parts::EndpointSettings{.role = request.role,
                                  .name = settings.name,
                                  .qos = iox_qos(settings, request),
                                  .requested_buffer_bytes = request.queue_length_bytes});
}

// The user's RouDi when one answers; otherwise one of our own for the pair's duration.
std::unique_ptr<PairService> start_roudi()
{
  std::string why;
  if (iox_parts::roudi_answers(why))
    return std::make_unique<iox_parts::BorrowedRoudi>();
  return std::make_unique<iox_parts::OwnedRoudi>(roudi_ready_within);
}

TransportPlan plan_iceoryx(const PlanRequest& request)
{
  const IoxSettings settings = parse_settings(request.values);
  TransportPlan plan = transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return effective_qos(settings, endpoint); },
      [&] {
        return transport_common::same_name_pair("--iceoryx", settings.name,
                                                request.pair_subscribers);
      },
      [&]() -> transport_common::SingleRolePlan {
        return {{transport_common::required_name("--iceoryx", settings.name)},
                [settings](const EndpointRequest& endpoint) {
                  return open_iceoryx(settings, endpoint);
                }};
      });
  plan.pair_service_starter = start_roudi;
  return plan;
}

} // namespace

TransportDescriptor iceoryx_transport()
{
  return {.name = "iceoryx",
          .summary = "iceoryx 2 zero-copy pub/sub on this host, through RouDi: --iceoryx NAME",
          .options = iceoryx_options(),
          .also_reads = {},
          // The runtime is the process's, shared by both endpoints (iox_runtime.hpp).
          .flags = {.threads = true, .pair_service = true, .host_local = true},
          .remote_launch = std::nullopt,
          .plan = plan_iceoryx};
}

} // namespace netprof
