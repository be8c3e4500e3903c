#include "fastdds_transport.hpp"

#include "fastdds_endpoint.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace netprof {

namespace {

using fastdds_parts::QosChoice;

// The dds transport's default, so that a Cyclone process and a Fast DDS one meet by default.
constexpr const char* default_topic_prefix = "netprof";
// DDS topic names are letters, digits and '_' here; "_data" and "_echo" are added.
constexpr std::size_t max_topic_prefix = 200;
// The RTPS well-known ports for domain d start at 7400 + 250 d: 232 is the last below 65536.
constexpr std::uint64_t max_domain = 232;

const OptionGroup& fastdds_options()
{
  static const OptionGroup group{
      "Fast DDS",
      {transport_common::naming_option(
           "fastdds", "NAME",
           "eProsima Fast DDS: the topics NAME_data (publisher -> subscribers) and NAME_echo "
           "(the back channel), NAME of letters, digits and '_', with the dds transport's "
           "type, so a --dds process of the same NAME and domain is a peer. Alone: netprof. "
           "Give every process the same; --local-pair picks a unique one",
           default_topic_prefix),
       OptionSpec("fastdds-domain", "ID", WholeNumber{0, max_domain}, "the DDS domain id")
           .with_default("0"),
       OptionSpec("fastdds-reliability", "reliable|best-effort",
                  Choice{{"reliable", "best-effort"}},
                  "reliability of every DDS reader and writer; DDS does not match a reliable "
                  "reader with a best-effort writer, so give every process the same")
           .with_default("reliable"),
       OptionSpec("fastdds-history", "keep-last[:N]|keep-all", Text{},
                  "history of every DDS reader and writer: keep-last:N keeps the newest N "
                  "samples (keep-last alone: 16), keep-all keeps every sample until taken and "
                  "acknowledged (at most -q bytes' worth: 5,556 samples of 180 B at the default "
                  "-q, 1,024 with -q 0), so a slow subscriber pushes back on the publisher")
           .with_default("keep-last"),
       OptionSpec("fastdds-loopback", "", Switch{},
                  "keep DDS on this host: Fast DDS's UDPv4 transport alone on 127.0.0.1 (no "
                  "shared memory, no multicast), discovering peers by unicast to 127.0.0.1, "
                  "whatever FASTRTPS_DEFAULT_PROFILES_FILE says; it meets a Cyclone process "
                  "given --dds-loopback. --local-pair always uses it; without it Fast DDS reads "
                  "its XML profiles, or uses its defaults (every interface, shared memory, "
                  "multicast discovery)")
           .passed(PairRoute::neither),
       OptionSpec("fastdds-notify", "listener|waitset|poll",
                  Choice{{"listener", "waitset", "poll"}},
                  "how netprof hears of samples: listener (Fast DDS's receive thread hands each "
                  "sample to netprof in on_data_available and writes the echo, while netprof "
                  "waits in a blocking receive), waitset (netprof's thread sleeps in a Fast DDS "
                  "WaitSet on a ReadCondition and takes them: one thread wake-up more), poll "
                  "(netprof's thread takes in a loop, never sleeping)")
           .with_default("waitset")}};
  return group;
}

bool is_topic_prefix(const std::string& name) noexcept
{
  return !name.empty() && name.size() <= max_topic_prefix &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

// The fastdds options of a command line, parsed once.
struct FastDdsSettings {
  std::string topic_prefix;
  bool topic_named = false; // --fastdds NAME given (a bare --fastdds names none)
  std::uint32_t domain = 0;
  bool loopback = false;
  fastdds_parts::Notify notify = fastdds_parts::Notify::waitset;
  QosChoice qos; // --fastdds-reliability and --fastdds-history
  bool reliability_given = false;
  std::optional<std::string> history_given; // --fastdds-history as written
};

std::string parse_topic_prefix(const OptionValues& values)
{
  const std::string name = values.text(fastdds_options()["fastdds"]).value_or(default_topic_prefix);
  if (!is_topic_prefix(name)) {
    throw UsageError("invalid value '" + name +
                     "' for --fastdds: expected a topic name of 1 to 200 letters, digits and '_'");
  }
  return name;
}

FastDdsSettings parse_settings(const OptionValues& values)
{
  constexpr fastdds_parts::Notify by_index[] = {
      fastdds_parts::Notify::listener, fastdds_parts::Notify::waitset, fastdds_parts::Notify::poll};
  FastDdsSettings settings;
  settings.topic_prefix = parse_topic_prefix(values);
  const std::vector<GivenOption>& given = values.in_order();
  settings.topic_named = std::any_of(given.begin(), given.end(), [](const GivenOption& option) {
    return option.long_name == "fastdds" && !option.values.empty();
  });
  settings.qos.reliability = *values.choice(fastdds_options()["fastdds-reliability"]) == 0
                                 ? QosChoice::Reliability::reliable
                                 : QosChoice::Reliability::best_effort;
  settings.qos.history = fastdds_parts::parse_history(
      values.text(fastdds_options()["fastdds-history"]).value_or("keep-last"), settings.qos.depth);
  settings.domain = static_cast<std::uint32_t>(
      values.whole_number(fastdds_options()["fastdds-domain"]).value_or(0));
  settings.loopback = values.on(fastdds_options()["fastdds-loopback"]);
  settings.notify = by_index[values.choice(fastdds_options()["fastdds-notify"]).value_or(1)];
  settings.reliability_given = values.given("fastdds-reliability");
  if (values.given("fastdds-history"))
    settings.history_given = values.text(fastdds_options()["fastdds-history"]);
  return settings;
}

// --fastdds-reliability and --fastdds-history, with --reliability and --history mapped onto them
// natively; given beside the DDS option they contradict, they are refused.
transport_common::DdsQosOptions qos_options(const FastDdsSettings& settings)
{
  return {"fastdds", settings.qos, settings.reliability_given, settings.history_given};
}

QosChoice qos_choice(const FastDdsSettings& settings, const QosRequest& generic)
{
  return qos_options(settings).choose(generic);
}

EffectiveQos fastdds_qos(const FastDdsSettings& settings, const EndpointRequest& request)
{
  return qos_options(settings).effective(request.qos, request.queue_length_bytes,
                                         request.message_size);
}

std::unique_ptr<Endpoint> open_fastdds(const FastDdsSettings& given, const EndpointRequest& request)
{
  fastdds_parts::EndpointSettings settings;
  settings.role = request.role;
  settings.topic_prefix = given.topic_prefix;
  settings.domain = given.domain;
  settings.loopback = given.loopback;
  settings.qos = qos_choice(given, request.qos);
  settings.queue_length_bytes = request.queue_length_bytes;
  settings.message_bytes = request.message_size;
  settings.header_bytes = request.header_bytes;
  settings.subscribers = request.subscribers;
  settings.notify = given.notify;
  return std::make_unique<fastdds_parts::FastDdsEndpoint>(settings);
}

// netprof_pair_PID_RANDOM: a local pair never hears another run's topics.
std::string unique_prefix()
{
  std::string name = "netprof_" + transport_common::unique_pair_name();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
  return name;
}

TransportPlan plan_fastdds(const PlanRequest& request)
{
  const FastDdsSettings settings = parse_settings(request.values);
  return transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return fastdds_qos(settings, endpoint); },
      [&]() -> LocalPairPlan {
        // --fastdds alone names no topic: the pair takes a unique one, as it does without
        // --fastdds.
        const std::string prefix = settings.topic_named ? settings.topic_prefix : unique_prefix();
        const std::vector<std::string> arguments{"--fastdds", prefix, "--fastdds-loopback"};
        return {arguments, std::vector(request.pair_subscribers, arguments), {}};
      },
      [&]() -> transport_common::SingleRolePlan {
        return {{settings.topic_prefix}, [settings](const EndpointRequest& endpoint) {
                  return open_fastdds(settings, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor fastdds_transport()
{
  return {.name = "fastdds",
          .summary = "eProsima Fast DDS: --fastdds NAME, the topics' prefix (as --dds)",
          .options = fastdds_options(),
          .also_reads = {},
          .flags = {},
          .remote_launch = std::nullopt, // across hosts: issue 33
          .plan = plan_fastdds};
}

} // namespace netprof
