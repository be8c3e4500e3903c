#include "mqtt_broker.hpp"

#include <sstream>

namespace netprof::mqtt_parts {

std::string owned_broker_config(std::uint16_t port)
{
  std::ostringstream out;
  out << "# Written by netprof for one local pair; removed with its folder when the pair ends.\n"
      << "listener " << port << " 127.0.0.1\n"
      << "allow_anonymous true\n"
      << "persistence false\n"
      << "# Nagle's algorithm off towards the clients, as they turn it off towards the broker.\n"
      << "set_tcp_nodelay true\n"
      << "# No limit on a subscriber's queue: the publisher's window bounds what is in flight.\n"
      << "max_queued_messages 0\n"
      << "log_dest stderr\n"
      << "log_type error\nlog_type warning\nlog_type notice\n";
  return out.str();
}

transport_common::OwnedServerKind owned_broker_kind()
{
  return {
      .program = "mosquitto",
      .label = "the mosquitto broker",
      .role = "the MQTT broker",
      .kind = "broker",
      .package = "mosquitto",
      .name_option = "--mqtt",
      .folder_prefix = "netprof-mqtt",
      .config_name = "mosquitto.conf",
      .log_name = "mosquitto.log",
      .config = [](std::uint16_t port, const std::string&) { return owned_broker_config(port); },
      .arguments =
          [](const std::string& config) {
            return std::vector<std::string>{"-c", config};
          },
      // mosquitto, run as root, drops to the user mosquitto after reading its configuration.
      .readable_by_others = true};
}

} // namespace netprof::mqtt_parts
