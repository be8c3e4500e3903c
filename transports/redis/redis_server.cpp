#include "redis_server.hpp"

#include <sstream>

namespace netprof::redis_parts {

std::string owned_server_config(std::uint16_t port, const std::string& folder)
{
  std::ostringstream out;
  out << "# Written by netprof for one local pair; removed with its folder when the pair ends.\n"
      << "bind 127.0.0.1\n"
      << "port " << port << "\n"
      << "protected-mode yes\n"
      << "# No Unix socket: unixsocket is left unset.\n"
      << "daemonize no\n"
      << "supervised no\n"
      << "# No persistence: nothing of a run is written to disk.\n"
      << "save \"\"\n"
      << "appendonly no\n"
      << "dir \"" << folder << "\"\n"
      << "databases 1\n"
      << "loglevel notice\n"
      << "logfile \"\"\n"
      << "# Redis's default for pub/sub clients, stated: a subscriber whose pending output passes\n"
      << "# 32 MB, or 8 MB for 60 s, is disconnected.\n"
      << "client-output-buffer-limit pubsub 32mb 8mb 60\n";
  return out.str();
}

transport_common::OwnedServerKind owned_server_kind()
{
  return {.program = "redis-server",
          .label = "the redis-server",
          .role = "the Redis server",
          .kind = "server",
          .package = "redis-server",
          .name_option = "--redis",
          .folder_prefix = "netprof-redis",
          .config_name = "redis.conf",
          .log_name = "redis.log",
          .config = owned_server_config,
          .arguments = [](const std::string& config) { return std::vector<std::string>{config}; },
          .readable_by_others = false};
}

} // namespace netprof::redis_parts
