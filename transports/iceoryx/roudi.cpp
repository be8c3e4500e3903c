#include "roudi.hpp"

#include <netprof/errors.hpp>

#include <iceoryx_hoofs/platform/platform_settings.hpp>
#include <iceoryx_posh/iceoryx_posh_types.hpp>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace netprof::iox_parts {

namespace {

using Clock = std::chrono::steady_clock;

// RouDi stops its clients first (none are left by then) and then itself; it removes what it
// made in /dev/shm and /tmp on SIGTERM, so it gets time for that before SIGKILL.
constexpr auto stop_grace = std::chrono::seconds(5);
constexpr auto poll_interval = std::chrono::milliseconds(10);
constexpr auto watch_interval = std::chrono::milliseconds(50);

// How a reaped child ended, in words.
std::string ending_of(int status)
{
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "ended";
}

} // namespace

std::string roudi_socket_path()
{
  return std::string(iox::platform::IOX_UDS_SOCKET_PATH_PREFIX) +
         iox::roudi::IPC_CHANNEL_ROUDI_NAME;
}

bool roudi_answers(std::string& why)
{
  return socket_answers(roudi_socket_path(), why);
}

bool socket_answers(const std::string& path, std::string& why)
{
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  const bool bound = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  const int error = errno;
  close(fd);
  if (!bound)
    why = path + ": " + std::strerror(error);
  return bound;
}

std::string no_roudi_message(const std::string& why)
{
  return "no iceoryx RouDi is running (" + why +
         "): start iox-roudi first (netprof --local-pair starts one of its own)";
}

RoudiWatch::RoudiWatch(const char* doing, std::chrono::milliseconds within,
                       const std::string& runtime_name)
    : m_runtime_socket(iox::platform::IOX_UDS_SOCKET_PATH_PREFIX + runtime_name),
      m_runtime_lock(iox::platform::IOX_LOCK_FILE_PATH_PREFIX + runtime_name + ".lock"),
      m_thread(&RoudiWatch::watch, this, std::string(doing), within)
{
}

RoudiWatch::~RoudiWatch()
{
  {
    const std::lock_guard lock(m_mutex);
    m_done = true;
  }
  m_done_changed.notify_all();
  m_thread.join();
}

void RoudiWatch::watch(std::string doing, std::chrono::milliseconds within)
{
  const auto give_up = Clock::now() + within;
  std::unique_lock lock(m_mutex);
  while (!m_done_changed.wait_for(lock, watch_interval, [this] { return m_done; })) {
    std::string why;
    std::string problem;
    if (!roudi_answers(why))
      problem = "RouDi stopped answering while netprof was " + doing + " (" + why + ")";
    else if (Clock::now() >= give_up)
      problem = "RouDi did not answer within " + std::to_string(within.count() / 1000) +
                " s while netprof was " + doing + " (is it hung?)";
    if (!problem.empty()) {
      // One write, as the core prints its errors; then out, from under iceoryx's wait.
      const std::string line = "netprof: " + problem + "\n";
      [[maybe_unused]] const auto written = write(STDERR_FILENO, line.data(), line.size());
      unlink(m_runtime_socket.c_str());
      unlink(m_runtime_lock.c_str());
      _exit(3);
    }
  }
}

OwnedRoudi::OwnedRoudi(std::chrono::milliseconds ready_within)
{
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0)
    throw TransportError(std::string("cannot start iox-roudi: fork: ") + std::strerror(errno));
  if (child == 0) {
    // Only async-signal-safe calls until exec. Its log goes nowhere: netprof says what it sees.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
      _exit(127);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    // A short kill delay: RouDi waits that long for clients it asked to leave.
    execlp("iox-roudi", "iox-roudi", "--kill-delay", "2", static_cast<char*>(nullptr));
    _exit(errno == ENOENT ? 127 : 126);
  }
  m_pid = child;
  const auto give_up = Clock::now() + ready_within;
  std::string why;
  for (;;) {
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        throw TransportError("cannot start iox-roudi: not found on PATH (apt-get install "
                             "iceoryx), and no RouDi is running");
      throw TransportError("iox-roudi " + ending_of(status) +
                           " before it was ready (is another RouDi starting, or one of another "
                           "user's holding its lock in /tmp?)");
    }
    if (roudi_answers(why)) {
      note_files();
      return;
    }
    if (Clock::now() >= give_up) {
      stop();
      throw TransportError("iox-roudi did not answer on " + roudi_socket_path() + " within " +
                           std::to_string(ready_within.count()) + " ms");
    }
    std::this_thread::sleep_for(poll_interval);
  }
}

OwnedRoudi::~OwnedRoudi()
{
  stop();
}

std::string OwnedRoudi::stop() noexcept
{
  if (m_pid <= 0)
    return {};
  const pid_t pid = m_pid;
  m_pid = -1;
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) {
    remove_what_it_left();
    return "the iox-roudi this run started (PID " + std::to_string(pid) + ") " + ending_of(status) +
           " before the run ended";
  }
  kill(pid, SIGTERM);
  const auto give_up = Clock::now() + stop_grace;
  while (Clock::now() < give_up) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      return {};
    std::this_thread::sleep_for(poll_interval);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  remove_what_it_left();
  return "the iox-roudi this run started (PID " + std::to_string(pid) +
         ") did not stop on SIGTERM within 5 s and was killed";
}

void OwnedRoudi::note_files()
{
  std::vector<std::string> paths = {"/dev/shm/iceoryx_mgmt", roudi_socket_path(),
                                    roudi_socket_path() + ".lock",
                                    std::string(iox::platform::IOX_LOCK_FILE_PATH_PREFIX) +
                                        iox::roudi::ROUDI_LOCK_NAME + ".lock"};
  if (const group* own = getgrgid(getegid()))
    paths.push_back(std::string("/dev/shm/") + own->gr_name);
  for (std::string& path : paths) {
    struct stat made {};
    if (lstat(path.c_str(), &made) == 0)
      m_files.push_back({std::move(path), made.st_dev, made.st_ino});
  }
}

void OwnedRoudi::remove_what_it_left() noexcept
{
  std::string why;
  if (roudi_answers(why))
    return; // another RouDi took over meanwhile: they are its now
  for (const MadeFile& file : m_files) {
    struct stat now {};
    if (lstat(file.path.c_str(), &now) == 0 && now.st_dev == file.device &&
        now.st_ino == file.inode)
      unlink(file.path.c_str());
  }
  m_files.clear();
}

} // namespace netprof::iox_parts
