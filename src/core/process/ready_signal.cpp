#include "core/process/ready_signal.hpp"

#include "core/process/stop_flag.hpp"

#include <netprof/errors.hpp>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace netprof {

namespace {

constexpr const char* variable = "NETPROF_LOCAL_PAIR_READY_FD";
// How often the wait looks at the interrupt flag and the deadline.
constexpr int poll_milliseconds = 5;

void close_fd(int& fd) noexcept
{
  if (fd >= 0)
    close(fd);
  fd = -1;
}

} // namespace

ReadySignal::ReadySignal()
{
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw TransportError("cannot start the local pair: pipe: " + std::string(std::strerror(errno)));
  m_read = fds[0];
  m_write = fds[1];
  // Only the write end crosses exec, into the one child spawned while it is open.
  if (fcntl(m_write, F_SETFD, 0) != 0) {
    const int error = errno;
    close_fd(m_read);
    close_fd(m_write);
    throw TransportError("cannot start the local pair: fcntl: " +
                         std::string(std::strerror(error)));
  }
}

ReadySignal::~ReadySignal()
{
  close_fd(m_read);
  close_fd(m_write);
}

std::vector<std::string> ReadySignal::child_environment() const
{
  std::vector<std::string> environment = environment_without_ready_signal();
  environment.push_back(std::string(variable) + "=" + std::to_string(m_write));
  return environment;
}

void ReadySignal::close_write_end() noexcept
{
  close_fd(m_write);
}

bool ReadySignal::wait(std::optional<Clock::time_point> deadline) noexcept
{
  pollfd readable{m_read, POLLIN, 0};
  while (!process_stop_flag().requested() && (!deadline || Clock::now() < *deadline)) {
    const int ready = poll(&readable, 1, poll_milliseconds);
    if (ready < 0 && errno != EINTR)
      return false;
    if (ready <= 0)
      continue;
    char byte = 0;
    ssize_t got = 0;
    do
      got = read(m_read, &byte, 1);
    while (got < 0 && errno == EINTR);
    return got == 1;
  }
  return false;
}

std::vector<std::string> environment_without_ready_signal()
{
  const std::string prefix = std::string(variable) + "=";
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::strncmp(*entry, prefix.c_str(), prefix.size()) != 0)
      environment.emplace_back(*entry);
  return environment;
}

bool local_pair_parent_waits() noexcept
{
  return std::getenv(variable) != nullptr;
}

void signal_ready() noexcept
{
  const char* text = std::getenv(variable);
  if (text == nullptr)
    return;
  int fd = -1;
  const char* end = text + std::strlen(text);
  const auto parsed = std::from_chars(text, end, fd);
  unsetenv(variable);
  struct stat status {};
  // Only a pipe: a variable left in some other environment must not make us write elsewhere.
  if (parsed.ec != std::errc{} || parsed.ptr != end || fd < 0 || fstat(fd, &status) != 0 ||
      !S_ISFIFO(status.st_mode))
    return;
  const char byte = 1;
  while (write(fd, &byte, 1) < 0 && errno == EINTR) {
  }
  close(fd);
}

} // namespace netprof
