#include "dds_transport.hpp"

#include "dds_endpoint.hpp"

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

using dds_parts::QosChoice;

constexpr const char* default_topic_prefix = "netprof";
// DDS topic names are letters, digits and '_' here; "_data" and "_echo" are added.
constexpr std::size_t max_topic_prefix = 200;
// Cyclone's ports for domain d start at 7400 + 250 d: 232 is the last below 65536.
constexpr std::uint64_t max_domain = 232;

const OptionGroup& dds_options()
{
  static const OptionGroup group{
      "DDS",
      {transport_common::naming_option(
           "dds", "NAME",
           "Eclipse Cyclone DDS: the topics NAME_data (publisher -> subscribers) and NAME_echo "
           "(the back channel), NAME of letters, digits and '_'. Alone: netprof. Give every "
           "process the same; --local-pair picks a unique one",
           default_topic_prefix),
       OptionSpec("dds-domain", "ID", WholeNumber{0, max_domain}, "the DDS domain id")
           .with_default("0"),
       OptionSpec("dds-reliability", "reliable|best-effort", Choice{{"reliable", "best-effort"}},
                  "reliability of every DDS reader and writer; DDS does not match a reliable "
                  "reader with a best-effort writer, so give every process the same")
           .with_default("reliable"),
       OptionSpec("dds-history", "keep-last[:N]|keep-all", Text{},
                  "history of every DDS reader and writer: keep-last:N keeps the newest N "
                  "samples (keep-last alone: 16), keep-all keeps every sample until taken and "
                  "acknowledged (at most -q bytes' worth, 1024 samples by default), so a slow "
                  "subscriber pushes back on the publisher")
           .with_default("keep-last"),
       OptionSpec("dds-loopback", "", Switch{},
                  "keep DDS on this host: Cyclone uses lo only, no multicast, and discovers "
                  "peers by unicast to 127.0.0.1, whatever CYCLONEDDS_URI says. --local-pair "
                  "always uses it; without it Cyclone reads CYCLONEDDS_URI, or uses its "
                  "defaults (the default interface, multicast discovery)")
           .passed(PairRoute::neither),
       OptionSpec("dds-notify", "listener|waitset|poll", Choice{{"listener", "waitset", "poll"}},
                  "how netprof hears of samples: listener (Cyclone's receive thread hands each "
                  "sample to netprof and writes the echo, as ddsperf does, while netprof waits "
                  "in a blocking receive), waitset (netprof's thread sleeps in a waitset and "
                  "takes them: one thread wake-up more), poll (netprof's thread takes in a loop, "
                  "never sleeping)")
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

// The dds options of a command line, parsed once.
struct DdsSettings {
  std::string topic_prefix;
  bool topic_named = false; // --dds NAME given (a bare --dds names none)
  std::uint32_t domain = 0;
  bool loopback = false;
  dds_parts::Notify notify = dds_parts::Notify::waitset;
  QosChoice qos; // --dds-reliability and --dds-history
  bool reliability_given = false;
  std::optional<std::string> history_given; // --dds-history as written
};

std::string parse_topic_prefix(const OptionValues& values)
{
  const std::string name = values.text(dds_options()["dds"]).value_or(default_topic_prefix);
  if (!is_topic_prefix(name)) {
    throw UsageError("invalid value '" + name +
                     "' for --dds: expected a topic name of 1 to 200 letters, digits and '_'");
  }
  return name;
}

DdsSettings parse_settings(const OptionValues& values)
{
  constexpr dds_parts::Notify by_index[] = {dds_parts::Notify::listener, dds_parts::Notify::waitset,
                                            dds_parts::Notify::poll};
  DdsSettings settings;
  settings.topic_prefix = parse_topic_prefix(values);
  const std::vector<GivenOption>& given = values.in_order();
  settings.topic_named = std::any_of(given.begin(), given.end(), [](const GivenOption& option) {
    return option.long_name == "dds" && !option.values.empty();
  });
  settings.qos.reliability = *values.choice(dds_options()["dds-reliability"]) == 0
                                 ? QosChoice::Reliability::reliable
                                 : QosChoice::Reliability::best_effort;
  settings.qos.history = dds_parts::parse_history(
      values.text(dds_options()["dds-history"]).value_or("keep-last"), settings.qos.depth);
  settings.domain =
      static_cast<std::uint32_t>(values.whole_number(dds_options()["dds-domain"]).value_or(0));
  settings.loopback = values.on(dds_options()["dds-loopback"]);
  settings.notify = by_index[values.choice(dds_options()["dds-notify"]).value_or(1)];
  settings.reliability_given = values.given("dds-reliability");
  if (values.given("dds-history"))
    settings.history_given = values.text(dds_options()["dds-history"]);
  return settings;
}

// --dds-reliability and --dds-history, with --reliability and --history mapped onto them
// natively; given beside the DDS option they contradict, they are refused.
transport_common::DdsQosOptions qos_options(const DdsSettings& settings)
{
  return {"dds", settings.qos, settings.reliability_given, settings.history_given};
}

QosChoice qos_choice(const DdsSettings& settings, const QosRequest& generic)
{
  return qos_options(settings).choose(generic);
}

EffectiveQos dds_qos(const DdsSettings& settings, const EndpointRequest& request)
{
  return qos_options(settings).effective(request.qos, request.queue_length_bytes,
                                         request.message_size);
}

std::unique_ptr<Endpoint> open_dds(const DdsSettings& given, const EndpointRequest& request)
{
  dds_parts::EndpointSettings settings;
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
  return std::make_unique<dds_parts::DdsEndpoint>(settings);
}

// netprof_pair_PID_RANDOM: a local pair never hears another run's topics.
std::string unique_prefix()
{
  std::string name = "netprof_" + transport_common::unique_pair_name();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
  return name;
}

TransportPlan plan_dds(const PlanRequest& request)
{
  const DdsSettings settings = parse_settings(request.values);
  return transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return dds_qos(settings, endpoint); },
      [&]() -> LocalPairPlan {
        // --dds alone names no topic: the pair takes a unique one, as it does without --dds.
        const std::string prefix = settings.topic_named ? settings.topic_prefix : unique_prefix();
        const std::vector<std::string> arguments{"--dds", prefix, "--dds-loopback"};
        return {arguments, std::vector(request.pair_subscribers, arguments), {}};
      },
      [&]() -> transport_common::SingleRolePlan {
        return {{settings.topic_prefix}, [settings](const EndpointRequest& endpoint) {
                  return open_dds(settings, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor dds_transport()
{
  return {.name = "dds",
          .summary = "Eclipse Cyclone DDS: --dds NAME, the topics' prefix (default netprof)",
          .options = dds_options(),
          .also_reads = {},
          .flags = {},
          .remote_launch = std::nullopt, // across hosts: issue 33
          .plan = plan_dds};
}

} // namespace netprof
