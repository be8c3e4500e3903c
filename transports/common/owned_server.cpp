#include "common/owned_server.hpp"

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
#include <thread>
#include <utility>

namespace netprof::transport_common {

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

OwnedServer::OwnedServer(OwnedServerKind kind, std::uint16_t port,
                         std::chrono::milliseconds ready_within)
    : m_kind(std::move(kind)), m_port(port)
{
  const std::string config = write_config();
  start(config);
  wait_until_ready(ready_within);
}

std::string OwnedServer::write_config()
{
  std::string folder = temp_root() + "/" + m_kind.folder_prefix + "-XXXXXX";
  if (mkdtemp(folder.data()) == nullptr)
    throw TransportError("cannot make a folder for " + m_kind.role + " in " + temp_root() + ": " +
                         std::strerror(errno));
  m_folder = folder;
  const std::string config = m_folder + "/" + m_kind.config_name;
  {
    std::ofstream file(config);
    file << m_kind.config(m_port, m_folder);
    if (!file) {
      remove_folder();
      throw TransportError("cannot write " + config);
    }
  }
  if (m_kind.readable_by_others) {
    chmod(m_folder.c_str(), 0755);
    chmod(config.c_str(), 0644);
  }
  return config;
}

void OwnedServer::start(const std::string& config)
{
  const std::string log = m_folder + "/" + m_kind.log_name;
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                          m_kind.readable_by_others ? 0644 : 0600);
  // Everything exec needs, made before the fork (the child may not allocate).
  std::vector<std::string> arguments = m_kind.arguments(config);
  arguments.insert(arguments.begin(), m_kind.program);
  std::vector<char*> argv;
  for (std::string& argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    if (log_fd >= 0)
      close(log_fd);
    remove_folder();
    throw TransportError("cannot start " + m_kind.program + ": fork: " + std::strerror(error));
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
    execvp(argv[0], argv.data());
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
        throw TransportError("cannot start " + m_kind.program + ", " + m_kind.role +
                             ": not found on PATH (apt-get install " + m_kind.package +
                             "), or give a running " + m_kind.kind + "'s " + m_kind.name_option +
                             " HOST:PORT");
      throw TransportError(m_kind.program + " " + ending_of(status) +
                           " before it accepted connections on 127.0.0.1:" +
                           std::to_string(m_port) + (tail.empty() ? std::string() : ": " + tail));
    }
    if (accepts_connections(m_port))
      return;
    if (Clock::now() >= give_up) {
      stop();
      throw TransportError(m_kind.program +
                           " did not accept connections on 127.0.0.1:" + std::to_string(m_port) +
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
    outcome = m_kind.label + " this run started (PID " + std::to_string(pid) + ") " +
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
      outcome = m_kind.label + " this run started (PID " + std::to_string(pid) +
                ") did not stop on SIGTERM within 5 s and was killed";
    }
  }
  remove_folder();
  return outcome;
}

std::string OwnedServer::log_tail() const
{
  std::ifstream file(m_folder + "/" + m_kind.log_name);
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

} // namespace netprof::transport_common
