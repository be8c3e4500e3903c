#include "dds_transport.hpp"

#include "dds_endpoint.hpp"

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
      {OptionSpec("dds", "NAME", Text{},
                  "Eclipse Cyclone DDS: the topics NAME_data (publisher -> subscribers) and "
                  "NAME_echo (the back channel), NAME of letters, digits and '_'. Alone: "
                  "netprof. Give every process the same; --local-pair picks a unique one")
           .with_implicit(default_topic_prefix)
           .passed(PairRoute::neither),
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
           .passed(PairRoute::neither)}};
  return group;
}

bool is_topic_prefix(const std::string& name) noexcept
{
  return !name.empty() && name.size() <= max_topic_prefix &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

class DdsTransport final : public Transport {
public:
  const OptionGroup& options() const override { return dds_options(); }

  void validate(Role /*role*/) const override
  {
    topic_prefix();
    qos();
    domain();
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    dds_parts::EndpointSettings settings;
    settings.role = request.role;
    settings.topic_prefix = topic_prefix();
    settings.domain = domain();
    settings.loopback = option_values().on(dds_options()["dds-loopback"]);
    settings.qos = qos();
    settings.queue_length_bytes = request.queue_length_bytes;
    settings.message_bytes = request.message_size;
    settings.header_bytes = request.header_bytes;
    settings.subscribers = request.subscribers;
    return std::make_unique<dds_parts::DdsEndpoint>(settings);
  }

  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    validate(Role::publisher);
    // --dds alone names no topic: the pair takes a unique one, as it does without --dds.
    std::string prefix = named_topic() ? topic_prefix() : unique_prefix();
    const std::vector<std::string> arguments{"--dds", prefix, "--dds-loopback"};
    return {arguments, std::vector<std::vector<std::string>>(subscribers, arguments), {}};
  }

private:
  // netprof_pair_PID_RANDOM: a local pair never hears another run's topics.
  static std::string unique_prefix()
  {
    std::string name = "netprof_" + transport_common::unique_pair_name();
    std::replace_if(
        name.begin(), name.end(), [](char c) { return c == '-' || c == '.'; }, '_');
    return name;
  }

  bool named_topic() const
  {
    const std::vector<GivenOption>& given = option_values().in_order();
    return std::any_of(given.begin(), given.end(), [](const GivenOption& option) {
      return option.long_name == "dds" && !option.values.empty();
    });
  }

  std::string topic_prefix() const
  {
    const std::string name =
        option_values().text(dds_options()["dds"]).value_or(default_topic_prefix);
    if (!is_topic_prefix(name)) {
      throw UsageError("invalid value '" + name +
                       "' for --dds: expected a topic name of 1 to 200 letters, digits and '_'");
    }
    return name;
  }

  std::uint32_t domain() const
  {
    return static_cast<std::uint32_t>(
        option_values().whole_number(dds_options()["dds-domain"]).value_or(0));
  }

  QosChoice qos() const
  {
    QosChoice chosen;
    chosen.reliability = *option_values().choice(dds_options()["dds-reliability"]) == 0
                             ? QosChoice::Reliability::reliable
                             : QosChoice::Reliability::best_effort;
    chosen.history = dds_parts::parse_history(
        option_values().text(dds_options()["dds-history"]).value_or("keep-last"), chosen.depth);
    return chosen;
  }
};

} // namespace

std::unique_ptr<Transport> make_dds_transport()
{
  return std::make_unique<DdsTransport>();
}

} // namespace netprof
