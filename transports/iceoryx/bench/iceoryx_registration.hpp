#pragma once

// How iceoryx_pingpong's processes register with RouDi and leave no runtime files behind: the
// check that RouDi listens, the registration bounded by an alarm, and the signal handler that
// ends the loops (or, while registering, the process) cleanly.

#include <iceoryx_hoofs/log/logmanager.hpp>
#include <iceoryx_hoofs/platform/platform_settings.hpp>
#include <iceoryx_posh/iceoryx_posh_types.hpp>
#include <iceoryx_posh/runtime/posh_runtime.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

namespace bare::iceoryx {

struct RuntimeError {
  std::string what;
};

// SIGTERM (run_limited's deadline, or the pinger giving up on the ponger) and SIGINT end the
// loops instead of the process, so each runtime is destroyed and unregisters from RouDi: killed
// outright, a runtime leaves its socket and lock file in /tmp behind.
inline volatile std::sig_atomic_t stop_signal = 0;
// initRuntime cannot be interrupted: while it runs, a signal ends the process at once, removing
// the files the runtime has made so far.
inline volatile std::sig_atomic_t registering = 0;
inline char runtime_socket[sizeof(sockaddr_un::sun_path)];
inline char runtime_lock[sizeof(sockaddr_un::sun_path) + 8];
inline volatile pid_t ponger_pid = 0; // the pinger's child, stopped with it

inline void say(const char* text) noexcept
{
  [[maybe_unused]] const auto written = write(STDERR_FILENO, text, std::strlen(text));
}

// For SIGTERM, SIGINT and the SIGALRM that bounds registering; async-signal-safe throughout.
extern "C" inline void on_signal(int signal)
{
  if (signal != SIGALRM && registering == 0) {
    stop_signal = signal;
    return;
  }
  if (ponger_pid > 0) {
    kill(ponger_pid, SIGTERM);
    waitpid(ponger_pid, nullptr, 0);
  }
  unlink(runtime_socket);
  unlink(runtime_lock);
  // The pinger speaks for both: a ponger stopped by the pinger has nothing to add.
  if (signal == SIGALRM)
    say(ponger_pid > 0 ? "iceoryx_pingpong: RouDi did not register the pinger within 5 s\n"
                       : "iceoryx_pingpong (ponger): RouDi did not register it within 7 s\n");
  else if (ponger_pid > 0)
    say("iceoryx_pingpong: stopped by a signal while registering with RouDi\n");
  _exit(1);
}

// initRuntime waits a minute for a RouDi that is not there, then aborts; RouDi's socket says
// at once whether one is listening (a datagram socket's connect fails when no one is bound).
inline void check_roudi()
{
  const std::string path =
      std::string(iox::platform::IOX_UDS_SOCKET_PATH_PREFIX) + iox::roudi::IPC_CHANNEL_ROUDI_NAME;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw RuntimeError{std::string("socket: ") + std::strerror(errno)};
  const bool listening =
      connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  const int error = errno;
  close(fd);
  if (!listening)
    throw RuntimeError{"RouDi is not running (" + path + ": " + std::strerror(error) +
                       "); start iox-roudi first"};
}

// The socket check above cannot see a RouDi that is there but never answers: the alarm can.
inline void init_runtime(const std::string& name, unsigned timeout_seconds)
{
  iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kWarn,
                                                           iox::log::LogLevelOutput::kHideLogLevel);
  // Where initRuntime puts them (iceoryx's own prefixes), for on_signal to remove.
  std::snprintf(runtime_socket, sizeof runtime_socket, "%s%s",
                iox::platform::IOX_UDS_SOCKET_PATH_PREFIX, name.c_str());
  std::snprintf(runtime_lock, sizeof runtime_lock, "%s%s.lock",
                iox::platform::IOX_LOCK_FILE_PATH_PREFIX, name.c_str());
  registering = 1;
  if (stop_signal != 0)
    raise(stop_signal); // arrived before `registering` was set
  alarm(timeout_seconds);
  iox::runtime::PoshRuntime::initRuntime(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name));
  alarm(0);
  registering = 0;
}

} // namespace bare::iceoryx
