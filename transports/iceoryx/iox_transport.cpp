#include "iox_transport.hpp"

#include "iox_endpoint.hpp"
#include "iox_qos.hpp"
#include "roudi.hpp"

#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <optional>

namespace netprof {

namespace {

using iox_parts::QueueFull;

// iceoryx's IdString_t holds 100 characters.
constexpr std::size_t max_name_length = 100;
// The core's default -s, for when the payload size is not known.
constexpr std::size_t default_payload_bytes = 128;
// How long a local pair waits for the iox-roudi it starts to answer.
constexpr auto roudi_ready_within = std::chrono::milliseconds(10000);

const OptionGroup& iceoryx_options()
{
  static const OptionGroup group{
      "iceoryx (one host, through RouDi)",
      {OptionSpec("iceoryx", "NAME", Text{},
                  "iceoryx 2 services netprof/NAME/data and netprof/NAME/back, through the "
                  "shared memory of the RouDi running on this host: data messages are written "
                  "into loaned chunks and read where they lie, no copy (iox-roudi: "
                  "start it first; --local-pair starts one when none runs). With --local-pair, "
                  "--iceoryx alone picks a unique NAME. -q sets the subscriber's queue, in "
                  "messages of -s (at most 256)")
           .with_implicit("")
           .passed(PairRoute::neither),
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

class IceoryxTransport final : public Transport {
public:
  const OptionGroup& options() const override { return iceoryx_options(); }

  void validate(Role) const override
  {
    if (const std::string name = service_name(); !name.empty())
      check_name(name);
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    const std::string name = service_name();
    if (name.empty())
      throw UsageError("--iceoryx needs a NAME (only --local-pair picks one itself)");
    check_name(name);
    iox_parts::EndpointSettings settings;
    settings.role = request.role;
    settings.name = name;
    settings.requested_buffer_bytes = request.queue_length_bytes;
    settings.qos = qos(request);
    return std::make_unique<iox_parts::IoxEndpoint>(settings);
  }

  EffectiveQos effective_qos(const EndpointRequest& request) const override
  {
    const iox_parts::Qos chosen = qos(request);
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

  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    validate(Role::publisher);
    const std::string given = service_name();
    const std::string name = given.empty() ? transport_common::unique_pair_name() : given;
    const std::vector<std::string> arguments = {"--iceoryx", name};
    return {arguments, std::vector(subscribers, arguments), {}};
  }

  // The runtime is the process's, shared by both endpoints (iox_runtime.hpp).
  bool allows_threads() const override { return true; }

  // The user's RouDi when one answers; otherwise one of our own for the pair's duration.
  std::unique_ptr<PairService> start_pair_service() const override
  {
    std::string why;
    if (iox_parts::roudi_answers(why))
      return std::make_unique<iox_parts::BorrowedRoudi>();
    return std::make_unique<iox_parts::OwnedRoudi>(roudi_ready_within);
  }

private:
  std::string service_name() const
  {
    return option_values().text(iceoryx_options()["iceoryx"]).value_or("");
  }

  QueueFull queue_full() const
  {
    const auto chosen = option_values().choice(iceoryx_options()["iox-queue-full"]);
    return chosen && *chosen == 1 ? QueueFull::block : QueueFull::discard;
  }

  // --iox-queue-full and -q as the queue, with --reliability and --history mapped onto them:
  // reliable (keep-all) blocks the publisher, best-effort (keep-last) discards the oldest, and
  // keep-last:N is the queue's capacity. Given beside a --iox-queue-full they contradict,
  // they are refused.
  iox_parts::Qos qos(const EndpointRequest& request) const
  {
    constexpr std::uint64_t most = iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY;
    iox_parts::Qos chosen;
    chosen.queue_full = queue_full();
    if (const std::optional<bool> waits = qos::publisher_waits(request.qos, "iceoryx")) {
      const QueueFull wanted = *waits ? QueueFull::block : QueueFull::discard;
      if (option_values().given("iox-queue-full") && wanted != chosen.queue_full)
        throw UsageError(to_string(request.qos) + " contradicts --iox-queue-full " +
                         iox_parts::queue_full_name(chosen.queue_full) + ": give one of them");
      chosen.queue_full = wanted;
    }
    const std::size_t message_bytes = request.message_size > 0
                                          ? request.message_size
                                          : request.header_bytes + default_payload_bytes;
    chosen.queue_capacity =
        iox_parts::queue_capacity_for(request.queue_length_bytes, message_bytes, most);
    if (request.qos.history && request.qos.history->depth) {
      const std::uint64_t depth = *request.qos.history->depth;
      if (depth > most)
        qos::refuse(qos::history_option(*request.qos.history), "iceoryx",
                    "a subscriber's queue holds at most " + std::to_string(most) + " messages");
      chosen.queue_capacity = depth;
    }
    return chosen;
  }
};

} // namespace

std::unique_ptr<Transport> make_iceoryx_transport()
{
  return std::make_unique<IceoryxTransport>();
}

} // namespace netprof
