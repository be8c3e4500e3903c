#include "core/process/child_process.hpp"

#include <netprof/errors.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace netprof {

std::string self_executable()
{
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0)
    throw TransportError("cannot find this executable to start the local pair: " +
                         std::string(std::strerror(errno)));
  return std::string(path, static_cast<std::size_t>(length));
}

namespace {

// NULL-terminated pointers into `strings`, as exec wants them.
std::vector<char*> pointers(const std::vector<std::string>& strings)
{
  std::vector<char*> result;
  for (const auto& text : strings)
    result.push_back(const_cast<char*>(text.c_str()));
  result.push_back(nullptr);
  return result;
}

} // namespace

pid_t spawn(const std::string& program, std::vector<std::string> args,
            const std::vector<std::string>& environment, int stdout_fd)
{
  args.insert(args.begin(), program);
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(environment);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0)
    throw TransportError("cannot start " + program + ": " + std::strerror(error));
  return pid;
}

int held_output_file()
{
  const int fd = memfd_create("netprof-held-report", MFD_CLOEXEC);
  if (fd < 0)
    throw TransportError("cannot hold a publisher's report: " + std::string(std::strerror(errno)));
  return fd;
}

void print_file(int fd)
{
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t got = pread(fd, buffer, sizeof(buffer), static_cast<off_t>(text.size()));
    if (got <= 0)
      break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  std::cout << text << std::flush;
}

std::optional<int> reap(pid_t pid)
{
  int status = 0;
  const pid_t done = waitpid(pid, &status, WNOHANG);
  if (done != pid)
    return std::nullopt;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return static_cast<int>(ExitStatus::runtime);
}

} // namespace netprof
