#pragma once

// The options and the plan both DDS transports (dds: Cyclone, fastdds: Fast DDS) share: the
// same option group under each vendor's prefix (--dds, --dds-domain, ... and --fastdds,
// --fastdds-domain, ...), parsed into one settings struct and planned alike, so that the two
// accept the same words and a process of either meets a process of the other. A vendor gives
// only its words (DdsVendor) and how to open its endpoint.

#include "dds_endpoint_settings.hpp"
#include "dds_qos_choice.hpp"

#include <netprof/options.hpp>
#include <netprof/transport_plan.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace netprof::transport_common {

// What differs between the DDS transports' options: the prefix of every option name and the
// help that names the vendor's own behaviour. The rest (value rules, defaults, the domain and
// QoS help) is the same for both.
struct DdsVendor {
  std::string prefix;         // "dds": the options --dds, --dds-domain, ...
  std::string caption;        // the option group's title in --help
  std::string naming_help;    // --PREFIX NAME
  std::string history_help;   // --PREFIX-history (keep-all's bound depends on the vendor)
  std::string loopback_help;  // --PREFIX-loopback
  std::string interface_help; // --PREFIX-interface
  std::string notify_help;    // --PREFIX-notify
  // --PREFIX-keys, for a vendor whose endpoint writes keyed types; empty: it has no such option.
  std::string keys_help;
  // --PREFIX-history when not given: the QoS that loses nothing of a default run on this
  // vendor (keep-last is a choice the user makes, not one a newcomer should meet as loss).
  std::string default_history = "keep-last";
};

// --PREFIX NAME, --PREFIX-domain, --PREFIX-reliability, --PREFIX-history, --PREFIX-loopback,
// --PREFIX-notify, --PREFIX-interface and (with keys_help) --PREFIX-keys, in that order.
OptionGroup dds_family_options(const DdsVendor& vendor);

// A DDS transport's options of a command line, parsed once.
struct DdsFamilySettings {
  std::string topic_prefix;
  bool topic_named = false; // --PREFIX NAME given (a bare --PREFIX names none)
  std::uint32_t domain = 0;
  bool loopback = false;
  std::optional<DdsInterface> interface; // --PREFIX-interface, found among the host's
  DdsNotify notify = DdsNotify::waitset;
  QosChoice qos; // --PREFIX-reliability and --PREFIX-history
  bool reliability_given = false;
  std::optional<std::string> history_given; // --PREFIX-history as written
  std::uint32_t keys = 1; // --PREFIX-keys: instances the samples are spread over (1: unkeyed)
};

// `options` is dds_family_options(vendor). Throws UsageError for a value the options refuse.
DdsFamilySettings parse_dds_family_settings(const std::string& prefix, const OptionGroup& options,
                                            const OptionValues& values);

using DdsEndpointFactory =
    std::function<std::unique_ptr<Endpoint>(const DdsEndpointSettings& settings)>;

// A DDS transport's plan: the QoS of its options with the generic ones mapped onto them, a
// local pair on a fresh topic prefix over loopback, or one process's endpoint from `open`.
TransportPlan plan_dds_family(const std::string& prefix, const OptionGroup& options,
                              const PlanRequest& request, const DdsEndpointFactory& open);

} // namespace netprof::transport_common
