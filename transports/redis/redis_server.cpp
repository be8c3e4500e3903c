#include "redis_server.hpp"

#include <netprof/clock.hpp>
#include <netprof/errors.hpp>

#include "common/unique_fd.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace netprof::redis_parts {

namespace {

constexpr auto poll_interval = std::chrono::milliseconds(20);
constexpr auto stop_grace = std::chrono::seconds(5);

std::string ending_of(int status)
{
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status));
  return "ended";
}

std::string temp_root()
{
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

} // namespace

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

bool accepts_connections(std::uint16_t port) noexcept
{
  const transport_common::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid())
    return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
}

OwnedServer::OwnedServer(std::uint16_t port, std::chrono::milliseconds ready_within) : m_port(port)
{
  const std::string config = write_config();
  start(config);
  wait_until_ready(ready_within);
}

std::string OwnedServer::write_config()
{
  std::string folder = temp_root() + "/netprof-redis-XXXXXX";
  if (mkdtemp(folder.data()) == nullptr)
    throw TransportError("cannot make a folder for the Redis server in " + temp_root() + ": " +
                         std::strerror(errno));
  m_folder = folder;
  const std::string config = m_folder + "/redis.conf";
  {
    std::ofstream file(config);
    file << owned_server_config(m_port, m_folder);
    if (!file) {
      remove_folder();
      throw TransportError("cannot write " + config);
    }
  }
  return config;
}

void OwnedServer::start(const std::string& config)
{
  const std::string log = m_folder + "/redis.log";
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    if (log_fd >= 0)
      close(log_fd);
    remove_folder();
    throw TransportError(std::string("cannot start redis-server: fork: ") + std::strerror(error));
  }
  if (child == 0) {
    // Only async-signal-safe calls until exec.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
      _exit(127);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0)
      dup2(null, STDIN_FILENO);
    const int out = log_fd >= 0 ? log_fd : null;
    if (out >= 0) {
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
    }
    execlp("redis-server", "redis-server", config.c_str(), static_cast<char*>(nullptr));
    _exit(errno == ENOENT ? 127 : 126);
  }
  if (log_fd >= 0)
    close(log_fd);
  m_pid = child;
}

void OwnedServer::wait_until_ready(std::chrono::milliseconds ready_within)
{
  const auto give_up = Clock::now() + ready_within;
  for (;;) {
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      const std::string tail = log_tail();
      remove_folder();
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        throw TransportError("cannot start redis-server, the Redis server: not found on PATH "
                             "(apt-get install redis-server), or give a running server's "
                             "--redis HOST:PORT");
      throw TransportError("redis-server " + ending_of(status) +
                           " before it accepted connections on 127.0.0.1:" +
                           std::to_string(m_port) + (tail.empty() ? std::string() : ": " + tail));
    }
    if (accepts_connections(m_port))
      return;
    if (Clock::now() >= give_up) {
      stop();
      throw TransportError(
          "redis-server did not accept connections on 127.0.0.1:" + std::to_string(m_port) +
          " within " + std::to_string(ready_within.count()) + " ms");
    }
    std::this_thread::sleep_for(poll_interval);
  }
}

OwnedServer::~OwnedServer()
{
  stop();
}

std::string OwnedServer::stop() noexcept
{
  if (m_pid <= 0) {
    remove_folder();
    return {};
  }
  const pid_t pid = m_pid;
  m_pid = -1;
  std::string outcome;
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) {
    outcome = "the redis-server this run started (PID " + std::to_string(pid) + ") " +
              ending_of(status) + " before the run ended";
  } else {
    kill(pid, SIGTERM);
    const auto give_up = Clock::now() + stop_grace;
    bool ended = false;
    while (Clock::now() < give_up) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        ended = true;
        break;
      }
      std::this_thread::sleep_for(poll_interval);
    }
    if (!ended) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome = "the redis-server this run started (PID " + std::to_string(pid) +
                ") did not stop on SIGTERM within 5 s and was killed";
    }
  }
  remove_folder();
  return outcome;
}

std::string OwnedServer::log_tail() const
{
  std::ifstream file(m_folder + "/redis.log");
  std::string line;
  std::string last;
  while (std::getline(file, line))
    if (!line.empty())
      last = line;
  return last;
}

void OwnedServer::remove_folder() noexcept
{
  if (m_folder.empty())
    return;
  std::error_code ignored;
  std::filesystem::remove_all(m_folder, ignored);
  m_folder.clear();
}

} // namespace netprof::redis_parts
