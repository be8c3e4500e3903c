#include "shm_transport.hpp"

#include "ring.hpp"
#include "shm_endpoint.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <random>

namespace netprof {

namespace shm {

std::size_t ring_capacity_for(std::size_t queue_length_bytes, std::vector<std::string>& notes)
{
  if (queue_length_bytes == 0) {
    notes.push_back("ring " + std::to_string(default_ring_capacity) + " B (the default for -q 0)");
    return default_ring_capacity;
  }
  if (queue_length_bytes > max_ring_capacity)
    throw UsageError("-q " + std::to_string(queue_length_bytes) +
                     " is too large for shm: the ring holds at most " +
                     std::to_string(max_ring_capacity) + " B (1 GiB)");
  const std::size_t capacity =
      std::bit_ceil(std::max<std::size_t>(queue_length_bytes, smallest_ring_capacity));
  if (capacity != queue_length_bytes)
    notes.push_back("ring " + std::to_string(capacity) + " B: -q " +
                    std::to_string(queue_length_bytes) + " rounded up to a power of two" +
                    (queue_length_bytes < smallest_ring_capacity ? " of at least 4096" : ""));
  return capacity;
}

void check_segment_name(const std::string& name)
{
  if (!transport_common::is_plain_name(name))
    throw UsageError("bad --shm value '" + name +
                     "': expected a name of 1 to 200 letters, digits, '.', '_' or '-' "
                     "(not starting with '.'); the segment is /dev/shm/netprof-NAME");
}

} // namespace shm

namespace {

using transport_common::pair_prefix;

const OptionGroup& shm_options()
{
  static const OptionGroup group{
      "Shared memory (one host)",
      {transport_common::naming_option(
           "shm", "NAME",
           "shared-memory ring /dev/shm/netprof-NAME, created by the publisher (-i 0); "
           "subscribers attach to it, before or after it exists. With --local-pair, --shm "
           "alone picks a unique NAME. -q sets the ring size in bytes (rounded up to a "
           "power of two; -q 1000000 gives 1 MiB); a message may take up to half of it, "
           "so a 16 MiB payload needs -q 33554432 or more. Under --publishers, publisher k "
           "(k >= 1) creates NAME.k.")
           .per_stream(StreamRule::name_suffix),
       OptionSpec("shm-history", "keep-last|keep-all", Choice{{"keep-last", "keep-all"}},
                  "publisher: keep-last (default) never waits, a subscriber that falls a ring "
                  "behind skips ahead and counts the loss; keep-all waits for the slowest live "
                  "subscriber")
           .passed(PairRoute::publisher_only),
       OptionSpec("shm-allow-user", "USER", Text{},
                  "also use a shared-memory segment owned by USER (a user name or a uid). Without "
                  "it netprof refuses a segment another user owns, as root too: that user could "
                  "squat the name or feed a subscriber foreign data")
           .passed(PairRoute::both)}};
  return group;
}

// The shm options of a command line, parsed once.
struct ShmSettings {
  std::string name;                               // empty: none given (the local pair picks one)
  std::optional<uid_t> trusted_user;              // unset: nobody but this process's own user
  shm::History history = shm::History::keep_last; // --shm-history; unset is keep-last
  bool history_given = false;
};

ShmSettings parse_settings(const OptionValues& values)
{
  static constexpr shm::History in_choice_order[] = {shm::History::keep_last,
                                                     shm::History::keep_all};
  ShmSettings settings;
  settings.name = values.text(shm_options()["shm"]).value_or("");
  if (!settings.name.empty())
    shm::check_segment_name(settings.name);
  const auto user = values.text(shm_options()["shm-allow-user"]);
  settings.trusted_user = user ? std::optional(shm::parse_trusted_user(*user)) : std::nullopt;
  const auto chosen = values.choice(shm_options()["shm-history"]);
  settings.history = chosen ? in_choice_order[*chosen] : shm::History::keep_last;
  settings.history_given = values.given("shm-history");
  return settings;
}

// --shm-history, or what --reliability and --history ask of it: reliable is keep-all (the
// publisher waits for the slowest reader), best-effort keep-last (a reader that lags loses).
shm::History history(const ShmSettings& settings, const QosRequest& request)
{
  if (request.history && request.history->depth)
    qos::refuse(qos::history_option(*request.history), "shm",
                "its ring is sized in bytes by -q and rounded up to a power of two, so it "
                "holds no exact number of messages: give keep-last and size the ring with -q "
                "(the report states the messages it holds)");
  const std::optional<bool> waits = qos::publisher_waits(request, "shm");
  if (!waits)
    return settings.history;
  const shm::History asked = *waits ? shm::History::keep_all : shm::History::keep_last;
  if (settings.history_given && asked != settings.history)
    throw UsageError(to_string(request) + " contradicts --shm-history " +
                     to_string(settings.history) + ": on shm " +
                     (*waits ? "reliable is keep-all" : "best-effort is keep-last") +
                     "; give one or the other");
  return asked;
}

// One choice on shm: whether the publisher waits for its slowest reader. The publisher's
// decides, since it formats the ring; a subscriber reads whatever the ring says.
EffectiveQos shm_qos(const ShmSettings& settings, const EndpointRequest& request)
{
  const shm::History chosen = history(settings, request.qos);
  EffectiveQos effective;
  const bool keep_all = chosen == shm::History::keep_all;
  effective.reliability = keep_all ? Reliability::reliable : Reliability::best_effort;
  effective.history = keep_all ? HistoryKind::keep_all : HistoryKind::keep_last;
  effective.set_by = QosSetBy::publisher;
  std::vector<std::string> unused;
  if (request.message_size > 0)
    effective.depth = shm::ring_capacity_for(request.queue_length_bytes, unused) /
                      shm::record_size(request.message_size);
  effective.meaning = keep_all ? "the publisher waits for the slowest live subscriber (the "
                                 "ring's messages are the depth); nothing is overwritten"
                               : "the publisher never waits; a subscriber a whole ring behind "
                                 "skips ahead and counts what it lost";
  if (request.role == Role::subscriber)
    effective.meaning += "; the publisher's setting decides (it formats the ring), and this "
                         "subscriber's is not checked against it";
  return effective;
}

std::unique_ptr<Endpoint> open_shm(const ShmSettings& given, const EndpointRequest& request)
{
  shm::EndpointSettings settings;
  settings.name = given.name;
  settings.requested_bytes = request.queue_length_bytes;
  settings.ring_capacity = shm::ring_capacity_for(request.queue_length_bytes, settings.notes);
  settings.history = history(given, request.qos);
  settings.owners.also_trusted = given.trusted_user;
  if (request.role == Role::publisher)
    return std::make_unique<shm::PublisherEndpoint>(std::move(settings));
  return std::make_unique<shm::SubscriberEndpoint>(std::move(settings), request.id);
}

// A pair's segment has a name of its own, never created again: one left by a pair that was
// killed outright would stay in /dev/shm for good unless a later pair removes it.
void remove_segments_of_killed_pairs()
{
  for (const std::string& path : shm::remove_abandoned_segments(pair_prefix))
    std::cerr << "netprof: removed " << path << ", left by a local pair that was killed\n";
}

// --shm-history alone selects shm and is refused for want of a NAME; beside another transport
// it is an option that transport does not read.
TransportPlan plan_shm(const PlanRequest& request)
{
  const ShmSettings settings = parse_settings(request.values);
  TransportPlan plan = transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return shm_qos(settings, endpoint); },
      [&] {
        // Every process names the same segment.
        LocalPairPlan pair =
            transport_common::same_name_pair("--shm", settings.name, request.pair_subscribers);
        pair.files.push_back(shm::object_path(pair.publisher.at(1)));
        return pair;
      },
      [&]() -> transport_common::SingleRolePlan {
        return {
            {transport_common::required_name("--shm", settings.name)},
            [settings](const EndpointRequest& endpoint) { return open_shm(settings, endpoint); }};
      });
  if (request.role == PlanRole::local_pair && settings.name.empty())
    plan.killed_pair_cleaner = remove_segments_of_killed_pairs;
  return plan;
}

} // namespace

TransportDescriptor shm_transport()
{
  return {.name = "shm",
          .summary = "shared-memory ring on this host: --shm NAME (publisher creates it)",
          .options = shm_options(),
          .also_reads = {},
          .flags = {.threads = true, .host_local = true},
          .remote_launch = std::nullopt,
          .plan = plan_shm};
}

} // namespace netprof
