#include "dds_family_options.hpp"

#include "address_plan.hpp"
#include "ipv4_interfaces.hpp"
#include "option_specs.hpp"
#include "pair_names.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <cctype>
#include <vector>

namespace netprof::transport_common {

namespace {

// Both vendors' default, so that a Cyclone process and a Fast DDS one meet by default.
constexpr const char* default_topic_prefix = "netprof";
// DDS topic names are letters, digits and '_' here; "_data" and "_echo" are added.
constexpr std::size_t max_topic_prefix = 200;
// The RTPS well-known ports for domain d start at 7400 + 250 d: 232 is the last below 65536.
constexpr std::uint64_t max_domain = 232;
// Each instance has a history of its own in every reader and writer: a bound that keeps
// keep-last's memory (depth x instances x sample) within reason.
constexpr std::uint64_t max_keys = 65'536;

bool is_topic_prefix(const std::string& name) noexcept
{
  return !name.empty() && name.size() <= max_topic_prefix &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

std::string parse_topic_prefix(const std::string& prefix, const OptionGroup& options,
                               const OptionValues& values)
{
  const std::string name = values.text(options[prefix]).value_or(default_topic_prefix);
  if (!is_topic_prefix(name)) {
    throw UsageError("invalid value '" + name + "' for --" + prefix +
                     ": expected a topic name of 1 to 200 letters, digits and '_'");
  }
  return name;
}

// --PREFIX NAME, not a bare --PREFIX (which takes the implicit default).
bool topic_named(const std::string& prefix, const OptionValues& values)
{
  const std::vector<GivenOption>& given = values.in_order();
  return std::any_of(given.begin(), given.end(), [&](const GivenOption& option) {
    return option.long_name == prefix && !option.values.empty();
  });
}

// --PREFIX-reliability and --PREFIX-history, with --reliability and --history mapped onto them
// natively; given beside the DDS option they contradict, they are refused.
DdsQosOptions qos_options(const std::string& prefix, const DdsFamilySettings& settings)
{
  return {prefix, settings.qos, settings.reliability_given, settings.history_given};
}

std::unique_ptr<Endpoint> open_endpoint(const std::string& prefix, const DdsFamilySettings& given,
                                        const EndpointRequest& request,
                                        const DdsEndpointFactory& open)
{
  DdsEndpointSettings settings;
  settings.role = request.role;
  settings.topic_prefix = given.topic_prefix;
  settings.domain = given.domain;
  settings.loopback = given.loopback;
  settings.interface = given.interface;
  settings.qos = qos_options(prefix, given).choose(request.qos);
  settings.queue_length_bytes = request.queue_length_bytes;
  settings.message_bytes = request.message_size;
  settings.header_bytes = request.header_bytes;
  settings.subscribers = request.subscribers;
  settings.notify = given.notify;
  settings.keys = given.keys;
  settings.payload_type = request.payload_type;
  return open(settings);
}

// netprof_pair_PID_RANDOM: a local pair never hears another run's topics.
std::string unique_prefix()
{
  std::string name = "netprof_" + unique_pair_name();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
  return name;
}

// --PREFIX-interface: an interface of this host, by address or name; never with --PREFIX-loopback,
// which names lo.
std::optional<DdsInterface> parse_interface(const std::string& prefix, const OptionGroup& options,
                                            const OptionValues& values, bool loopback)
{
  const std::optional<std::string> given = values.text(options[prefix + "-interface"]);
  if (!given || given->empty())
    return std::nullopt;
  if (loopback)
    throw UsageError("--" + prefix + "-interface and --" + prefix +
                     "-loopback: give one (the loopback keeps DDS on lo)");
  const Ipv4Interface found = find_ipv4_interface(*given, "--" + prefix + "-interface");
  return DdsInterface{found.name, to_string(found.address)};
}

} // namespace

OptionGroup dds_family_options(const DdsVendor& vendor)
{
  const std::string& prefix = vendor.prefix;
  OptionGroup group{
      vendor.caption,
      {naming_option(prefix, "NAME", vendor.naming_help, default_topic_prefix)
           .per_stream_named('_'),
       OptionSpec(prefix + "-domain", "ID", WholeNumber{0, max_domain}, "the DDS domain id")
           .with_default("0"),
       OptionSpec(prefix + "-reliability", "reliable|best-effort",
                  Choice{{"reliable", "best-effort"}},
                  "reliability of every DDS reader and writer; DDS does not match a reliable "
                  "reader with a best-effort writer, so give every process the same")
           .with_default("reliable"),
       OptionSpec(prefix + "-history", "keep-last[:N]|keep-all", Text{}, vendor.history_help)
           .with_default(vendor.default_history),
       OptionSpec(prefix + "-loopback", "", Switch{}, vendor.loopback_help)
           .passed(PairRoute::neither),
       OptionSpec(prefix + "-notify", "listener|waitset|poll",
                  Choice{{"listener", "waitset", "poll"}}, vendor.notify_help)
           .with_default("waitset"),
       OptionSpec(prefix + "-interface", "ADDR|NAME", Text{}, vendor.interface_help)
           .passed(PairRoute::neither)}};
  if (!vendor.keys_help.empty()) {
    group.options.push_back(
        OptionSpec(prefix + "-keys", "K", WholeNumber{0, max_keys}, vendor.keys_help)
            .with_default("1"));
  }
  return group;
}

DdsFamilySettings parse_dds_family_settings(const std::string& prefix, const OptionGroup& options,
                                            const OptionValues& values)
{
  constexpr DdsNotify by_index[] = {DdsNotify::listener, DdsNotify::waitset, DdsNotify::poll};
  const OptionSpec& history = options[prefix + "-history"];
  DdsFamilySettings settings;
  settings.topic_prefix = parse_topic_prefix(prefix, options, values);
  settings.topic_named = topic_named(prefix, values);
  settings.qos.reliability = *values.choice(options[prefix + "-reliability"]) == 0
                                 ? QosChoice::Reliability::reliable
                                 : QosChoice::Reliability::best_effort;
  settings.qos.history =
      parse_history(values.text(history).value_or(history.default_text.value_or("keep-last")),
                    settings.qos.depth, "--" + prefix + "-history");
  settings.domain =
      static_cast<std::uint32_t>(values.whole_number(options[prefix + "-domain"]).value_or(0));
  settings.loopback = values.on(options[prefix + "-loopback"]);
  settings.interface = parse_interface(prefix, options, values, settings.loopback);
  settings.notify = by_index[values.choice(options[prefix + "-notify"]).value_or(1)];
  settings.reliability_given = values.given(prefix + "-reliability");
  if (values.given(prefix + "-history"))
    settings.history_given = values.text(history);
  if (options.contains(prefix + "-keys")) {
    const std::uint64_t keys = values.whole_number(options[prefix + "-keys"]).value_or(1);
    settings.keys = static_cast<std::uint32_t>(std::max<std::uint64_t>(keys, 1)); // 0: unkeyed
  }
  return settings;
}

TransportPlan plan_dds_family(const std::string& prefix, const OptionGroup& options,
                              const PlanRequest& request, const DdsEndpointFactory& open)
{
  const DdsFamilySettings settings = parse_dds_family_settings(prefix, options, request.values);
  return plan_pair_or_single(
      request,
      [&](const EndpointRequest& endpoint) {
        return qos_options(prefix, settings)
            .effective(endpoint.qos, endpoint.queue_length_bytes, endpoint.message_size);
      },
      [&]() -> LocalPairPlan {
        if (settings.interface)
          throw UsageError("--" + prefix + "-interface: the local pair keeps DDS on lo (--" +
                           prefix + "-loopback); the interface is for processes on other hosts");
        // A bare --PREFIX names no topic: the pair takes a unique one, as it does without it.
        const std::string topic = settings.topic_named ? settings.topic_prefix : unique_prefix();
        const std::vector<std::string> arguments{"--" + prefix, topic, "--" + prefix + "-loopback"};
        return {arguments, std::vector(request.pair_subscribers, arguments), {}};
      },
      [&]() -> SingleRolePlan {
        return {{settings.topic_prefix}, [prefix, settings, open](const EndpointRequest& endpoint) {
                  return open_endpoint(prefix, settings, endpoint, open);
                }};
      });
}

} // namespace netprof::transport_common
