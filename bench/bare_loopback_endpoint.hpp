#pragma once

// Where the two processes of a bare ZeroMQ or NNG baseline meet, picked before the fork so both
// know it: a socket file named after the program and this process (ipc://), or a loopback TCP
// port free right now (tcp://).

#include "bare_common.hpp"
#include "bare_two_processes.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bare {

// --transport tcp|ipc into `ipc`; false for any other flag.
inline bool take_transport_option(std::string_view flag, std::string_view value, bool& ipc)
{
  if (flag != "--transport")
    return false;
  if (value != "tcp" && value != "ipc")
    throw UsageError{"--transport must be tcp or ipc"};
  ipc = value == "ipc";
  return true;
}

class LoopbackEndpoint {
public:
  // Nothing, said on stderr, when the kernel has no port to give.
  static std::optional<LoopbackEndpoint> pick(bool ipc, const char* program)
  {
    if (ipc) {
      const char* folder = std::getenv("TMPDIR");
      const std::string file = std::string(folder != nullptr ? folder : "/tmp") + "/" + program +
                               "-" + std::to_string(getpid()) + ".ipc";
      return LoopbackEndpoint("ipc://" + file, file);
    }
    const std::optional<std::uint16_t> port = free_loopback_tcp_port();
    if (!port) {
      std::fprintf(stderr, "%s: no free loopback port: %s\n", program, std::strerror(errno));
      return std::nullopt;
    }
    return LoopbackEndpoint("tcp://127.0.0.1:" + std::to_string(*port), {});
  }

  LoopbackEndpoint(LoopbackEndpoint&& other) noexcept
      : m_url(std::move(other.m_url)), m_file(std::exchange(other.m_file, {}))
  {
  }
  LoopbackEndpoint& operator=(LoopbackEndpoint&&) = delete;
  LoopbackEndpoint(const LoopbackEndpoint&) = delete;
  LoopbackEndpoint& operator=(const LoopbackEndpoint&) = delete;

  // The socket file goes with the process that picked it (a forked child leaves by _exit, which
  // runs no destructor).
  ~LoopbackEndpoint()
  {
    if (!m_file.empty())
      unlink(m_file.c_str());
  }

  const std::string& url() const { return m_url; }

private:
  LoopbackEndpoint(std::string url, std::string file)
      : m_url(std::move(url)), m_file(std::move(file))
  {
  }

  std::string m_url;
  std::string m_file; // empty: no file to remove
};

// run_two_processes with the two processes meeting at a LoopbackEndpoint: child(url) and
// parent(url). Its socket file is removed once both are done.
template <typename Child, typename Parent, typename Finish>
int run_two_processes_over_loopback(const TwoProcesses& run, bool ipc, Child&& child,
                                    Parent&& parent, Finish&& finish)
{
  const std::optional<LoopbackEndpoint> endpoint = LoopbackEndpoint::pick(ipc, run.program);
  if (!endpoint)
    return 1;
  const std::string& url = endpoint->url();
  return run_two_processes(
      run, [&] { child(url); }, [&] { return parent(url); }, std::forward<Finish>(finish));
}

} // namespace bare
