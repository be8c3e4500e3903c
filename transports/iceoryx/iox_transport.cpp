#include "iox_transport.hpp"

#include "iox_endpoint.hpp"
#include "iox_qos.hpp"
#include "roudi.hpp"

#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

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
                  "iceoryx 2 services netprof/NAME/data and netprof/NAME/back, zero copy "
                  "through the shared memory of the RouDi running on this host (iox-roudi: "
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
    settings.qos.queue_full = queue_full();
    const std::size_t message_bytes = request.message_size > 0
                                          ? request.message_size
                                          : request.header_bytes + default_payload_bytes;
    settings.qos.queue_capacity =
        iox_parts::queue_capacity_for(request.queue_length_bytes, message_bytes,
                                      iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY);
    return std::make_unique<iox_parts::IoxEndpoint>(settings);
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
};

} // namespace

std::unique_ptr<Transport> make_iceoryx_transport()
{
  return std::make_unique<IceoryxTransport>();
}

} // namespace netprof
