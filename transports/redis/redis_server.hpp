#pragma once

// The Redis server a local pair (or a test) starts when the user names none: Debian's
// redis-server, listening on 127.0.0.1 only at a port the pair picked, from a configuration file
// netprof writes into a private temporary folder (also the server's working directory); stopped
// by its PID afterwards and the folder removed.

#include <netprof/transport_plan.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace netprof::redis_parts {

// The configuration netprof's own server runs with: 127.0.0.1:port only, protected mode, no
// persistence (no RDB snapshots, no append-only file), no Unix socket, its working directory
// `folder`; Redis's default client-output-buffer-limit for pub/sub clients is kept, so a lagging
// subscriber is disconnected as a default server would.
std::string owned_server_config(std::uint16_t port, const std::string& folder);

// True when something accepts a TCP connection at 127.0.0.1:port.
bool accepts_connections(std::uint16_t port) noexcept;

// A redis-server this process started (fork and exec, from PATH) and stops by its PID: SIGTERM,
// then SIGKILL after a grace. It gets SIGTERM should this process die first (PR_SET_PDEATHSIG).
class OwnedServer final : public PairService {
public:
  // Writes the configuration, starts the server and waits until it accepts connections, at most
  // `ready_within`; throws TransportError with why (not installed, exited, never ready).
  OwnedServer(std::uint16_t port, std::chrono::milliseconds ready_within);
  ~OwnedServer() override;

  OwnedServer(const OwnedServer&) = delete;
  OwnedServer& operator=(const OwnedServer&) = delete;

  // "" when it was still running; otherwise how it ended early.
  std::string stop() noexcept override;
  pid_t pid() const noexcept { return m_pid; }
  const std::string& folder() const noexcept { return m_folder; }

private:
  // The steps of the constructor: a private folder with redis.conf (returns its path);
  // redis-server started on it, its output in redis.log; then waiting for it to listen.
  std::string write_config();
  void start(const std::string& config);
  void wait_until_ready(std::chrono::milliseconds ready_within);
  std::string log_tail() const;
  void remove_folder() noexcept;

  std::uint16_t m_port = 0;
  pid_t m_pid = -1;
  std::string m_folder; // redis.conf and redis.log; the server's dir
};

} // namespace netprof::redis_parts
