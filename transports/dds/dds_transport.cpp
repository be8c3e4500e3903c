#include "dds_transport.hpp"

#include "dds_endpoint.hpp"

#include "common/dds_family_options.hpp"

#include <memory>

namespace netprof {

namespace {

// This vendor's words in the options both DDS transports share (common/dds_family_options.hpp).
const transport_common::DdsVendor& dds_vendor()
{
  static const transport_common::DdsVendor vendor{
      .prefix = "dds",
      .caption = "DDS",
      .naming_help =
          "Eclipse Cyclone DDS: the topics NAME_data (publisher -> subscribers) and NAME_echo "
          "(the back channel), NAME of letters, digits and '_'. Alone: netprof. Give every "
          "process the same; --local-pair picks a unique one. Under --publishers and --topics "
          "stream k's is NAME_k",
      .history_help = "history of every DDS reader and writer: keep-last:N keeps the newest N "
                      "samples (keep-last alone: 16), keep-all keeps every sample until taken and "
                      "acknowledged (at most -q bytes' worth, 1024 samples by default), so a slow "
                      "subscriber pushes back on the publisher",
      .loopback_help = "keep DDS on this host: Cyclone uses lo only, no multicast, and discovers "
                       "peers by unicast to 127.0.0.1, whatever CYCLONEDDS_URI says. --local-pair "
                       "always uses it; without it Cyclone reads CYCLONEDDS_URI, or uses its "
                       "defaults (the default interface, multicast discovery)",
      .interface_help =
          "keep DDS on one interface, by IPv4 address or name: Cyclone uses only it, discovering "
          "peers by multicast on it, whatever CYCLONEDDS_URI says; what the multi-host "
          "launcher gives each host (its address in the hosts file)",
      .notify_help =
          "how netprof hears of samples: listener (Cyclone's receive thread hands each "
          "sample to netprof and writes the echo, or a ping-pong's next probe, as ddsperf "
          "does, while netprof waits in a blocking receive), waitset (netprof's thread sleeps "
          "in a waitset and takes them: one thread wake-up more), poll (netprof's thread takes "
          "in a loop, never sleeping)",
      .keys_help =
          "spread the data samples over K instances of a keyed type, round-robin by sequence "
          "number (control messages in instance 0); --dds-history applies to each instance, "
          "as DDS does. 0 or 1: the unkeyed type (0 to 65536; docs/transport-dds.md)"};
  return vendor;
}

const OptionGroup& dds_options()
{
  static const OptionGroup group = transport_common::dds_family_options(dds_vendor());
  return group;
}

TransportPlan plan_dds(const PlanRequest& request)
{
  return transport_common::plan_dds_family(
      "dds", dds_options(), request,
      [](const transport_common::DdsEndpointSettings& settings) -> std::unique_ptr<Endpoint> {
        return std::make_unique<dds_parts::DdsEndpoint>(settings);
      });
}

} // namespace

TransportDescriptor dds_transport()
{
  return {.name = "dds",
          .summary = "Eclipse Cyclone DDS: --dds NAME, the topics' prefix (default netprof)",
          .options = dds_options(),
          .also_reads = {},
          .flags = {.typed_payloads = true},
          // The default topics, on the interface that has the host's address in the hosts
          // file (the one facing the other hosts), discovering each other by multicast there.
          .remote_launch = RemoteLaunch{{"--dds", "--dds-interface", "{address}"},
                                        {"--dds", "--dds-interface", "{address}"}},
          .plan = plan_dds};
}

} // namespace netprof
