#pragma once

// The MQTT broker a local pair (or a test) starts when the user names none: Debian's mosquitto,
// listening on 127.0.0.1 only at a port the pair picked, from a configuration file netprof writes
// into a private temporary folder; stopped by its PID afterwards and the folder removed.

#include <netprof/transport_plan.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace netprof::mqtt_parts {

// The configuration netprof's own broker runs with: one listener on 127.0.0.1:port, anonymous
// clients, no persistence, and no limit on a subscriber's queue (so QoS 1 loses nothing to the
// broker's max_queued_messages; the publisher's window bounds what is unacknowledged).
std::string owned_broker_config(std::uint16_t port);

// "mosquitto version 2.0.11", from `mosquitto -h` (empty when it cannot be run).
std::string installed_mosquitto_version();

// True when something accepts a TCP connection at 127.0.0.1:port.
bool accepts_connections(std::uint16_t port) noexcept;

// A mosquitto this process started (fork and exec, from PATH) and stops by its PID: SIGTERM,
// then SIGKILL after a grace. It gets SIGTERM should this process die first (PR_SET_PDEATHSIG).
class OwnedBroker final : public PairService {
public:
  // Writes the configuration, starts the broker and waits until it accepts connections, at
  // most `ready_within`; throws TransportError with why (not installed, exited, never ready).
  OwnedBroker(std::uint16_t port, std::chrono::milliseconds ready_within);
  ~OwnedBroker() override;

  OwnedBroker(const OwnedBroker&) = delete;
  OwnedBroker& operator=(const OwnedBroker&) = delete;

  // "" when it was still running; otherwise how it ended early.
  std::string stop() noexcept override;
  pid_t pid() const noexcept { return m_pid; }
  const std::string& folder() const noexcept { return m_folder; }

private:
  // The steps of the constructor: a private folder with mosquitto.conf (returns its path);
  // mosquitto started on it, its output in mosquitto.log; then waiting for it to listen.
  std::string write_config();
  void start(const std::string& config);
  void wait_until_ready(std::chrono::milliseconds ready_within);
  std::string log_tail() const;
  void remove_folder() noexcept;

  std::uint16_t m_port = 0;
  pid_t m_pid = -1;
  std::string m_folder; // mosquitto.conf and mosquitto.log
};

} // namespace netprof::mqtt_parts
