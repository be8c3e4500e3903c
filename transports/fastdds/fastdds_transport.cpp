#include "fastdds_transport.hpp"

#include "fastdds_endpoint.hpp"

#include "common/dds_family_options.hpp"

#include <memory>

namespace netprof {

namespace {

// This vendor's words in the options both DDS transports share (common/dds_family_options.hpp).
const transport_common::DdsVendor& fastdds_vendor()
{
  static const transport_common::DdsVendor vendor{
      .prefix = "fastdds",
      .caption = "Fast DDS",
      .naming_help =
          "eProsima Fast DDS: the topics NAME_data (publisher -> subscribers) and NAME_echo "
          "(the back channel), NAME of letters, digits and '_', with the dds transport's "
          "type, so a --dds process of the same NAME and domain is a peer. Alone: netprof. "
          "Give every process the same; --local-pair picks a unique one. Under --publishers and "
          "--topics "
          "stream k's is NAME_k",
      .history_help =
          "history of every DDS reader and writer: keep-last:N keeps the newest N "
          "samples (keep-last alone: 16), keep-all keeps every sample until taken and "
          "acknowledged (at most -q bytes' worth: 5,556 samples of 180 B at the default "
          "-q, 1,024 with -q 0), so a slow subscriber pushes back on the publisher",
      .loopback_help =
          "keep DDS on this host: Fast DDS's UDPv4 transport alone on 127.0.0.1 (no "
          "shared memory, no multicast), discovering peers by unicast to 127.0.0.1, "
          "whatever FASTRTPS_DEFAULT_PROFILES_FILE says; it meets a Cyclone process "
          "given --dds-loopback. --local-pair always uses it; without it Fast DDS reads "
          "its XML profiles, or uses its defaults (every interface, shared memory, "
          "multicast discovery)",
      .interface_help = "keep DDS on one interface, by IPv4 address or name: Fast DDS's UDPv4 "
                        "transport alone on it (no shared memory), discovering peers by multicast "
                        "on it, whatever FASTRTPS_DEFAULT_PROFILES_FILE says; what the multi-host "
                        "launcher gives each host (its address in the hosts file)",
      .notify_help = "how netprof hears of samples: listener (Fast DDS's receive thread hands each "
                     "sample to netprof in on_data_available and writes the echo, or a "
                     "ping-pong's next probe, while netprof waits in a blocking receive), waitset "
                     "(netprof's thread sleeps in a Fast DDS WaitSet on a ReadCondition and takes "
                     "them: one thread wake-up more), poll (netprof's thread takes in a loop, "
                     "never sleeping)",
      // Its hand-written type (fastdds_message_type.hpp) has no keyed form: no --fastdds-keys.
      .keys_help = {},
      // Keep-last:16, the dds transport's default, lost a few samples in 2,000 at 2,000 Hz on
      // this host (the writer overwrote what a reader still had to be sent again); keep-all
      // pushes back instead, and history is not matched, so a Cyclone peer still meets it.
      .default_history = "keep-all"};
  return vendor;
}

const OptionGroup& fastdds_options()
{
  static const OptionGroup group = transport_common::dds_family_options(fastdds_vendor());
  return group;
}

TransportPlan plan_fastdds(const PlanRequest& request)
{
  return transport_common::plan_dds_family(
      "fastdds", fastdds_options(), request,
      [](const transport_common::DdsEndpointSettings& settings) -> std::unique_ptr<Endpoint> {
        return std::make_unique<fastdds_parts::FastDdsEndpoint>(settings);
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
          // The default topics, on the interface that has the host's address in the hosts
          // file (the one facing the other hosts), discovering each other by multicast there.
          .remote_launch = RemoteLaunch{{"--fastdds", "--fastdds-interface", "{address}"},
                                        {"--fastdds", "--fastdds-interface", "{address}"}},
          .plan = plan_fastdds};
}

} // namespace netprof
