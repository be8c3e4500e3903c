#pragma once

// A server a local pair (or a test) starts when the user names none, as the mqtt transport starts
// Debian's mosquitto and the redis transport Debian's redis-server: listening on 127.0.0.1 only at
// a port the pair picked, from a configuration file netprof writes into a private temporary
// folder; stopped by its PID afterwards and the folder removed. What differs between servers is
// data (OwnedServerKind); how one is started, watched and stopped is written once here.

#include <netprof/transport_plan.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace netprof::transport_common {

struct OwnedServerKind {
  std::string program;       // found on PATH: "mosquitto"
  std::string label;         // "the mosquitto broker": what stop() calls it
  std::string role;          // "the MQTT broker": what a failure to start calls it
  std::string kind;          // "broker", "server": "give a running broker's --mqtt HOST:PORT"
  std::string package;       // "apt-get install mosquitto"
  std::string name_option;   // "--mqtt"
  std::string folder_prefix; // "netprof-mqtt": $TMPDIR/netprof-mqtt-XXXXXX
  std::string config_name;   // "mosquitto.conf", in the folder
  std::string log_name;      // "mosquitto.log", in the folder: the server's stdout and stderr
  // The configuration's text, for the port and the folder.
  std::function<std::string(std::uint16_t port, const std::string& folder)> config;
  // The arguments after the program's name, for the configuration file's path.
  std::function<std::vector<std::string>(const std::string& config_path)> arguments;
  // The server reads its configuration after dropping root (mosquitto): the folder and the file
  // stay readable by others while it starts (the folder holds nothing else).
  bool readable_by_others = false;
};

// True when something accepts a TCP connection at 127.0.0.1:port.
bool accepts_connections(std::uint16_t port) noexcept;

// A server this process started (fork and exec, from PATH) and stops by its PID: SIGTERM, then
// SIGKILL after a grace. It gets SIGTERM should this process die first (PR_SET_PDEATHSIG).
class OwnedServer final : public PairService {
public:
  // Writes the configuration, starts the server and waits until it accepts connections, at most
  // `ready_within`; throws TransportError with why (not installed, exited, never ready).
  OwnedServer(OwnedServerKind kind, std::uint16_t port, std::chrono::milliseconds ready_within);
  ~OwnedServer() override;

  OwnedServer(const OwnedServer&) = delete;
  OwnedServer& operator=(const OwnedServer&) = delete;

  // "" when it was still running; otherwise how it ended early.
  std::string stop() noexcept override;
  pid_t pid() const noexcept { return m_pid; }
  const std::string& folder() const noexcept { return m_folder; }

private:
  // The steps of the constructor: a private folder with the configuration (returns its path);
  // the server started on it, its output in the log; then waiting for it to listen.
  std::string write_config();
  void start(const std::string& config);
  void wait_until_ready(std::chrono::milliseconds ready_within);
  std::string log_tail() const;
  void remove_folder() noexcept;

  OwnedServerKind m_kind;
  std::uint16_t m_port = 0;
  pid_t m_pid = -1;
  std::string m_folder;
};

} // namespace netprof::transport_common
