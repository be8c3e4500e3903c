#pragma once

// RouDi, iceoryx's broker: whether one answers on this host, and one that netprof starts for a
// local pair (or a test) when none does, and stops by its PID afterwards.

#include <netprof/registry.hpp>

#include <sys/types.h>

#include <vector>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace netprof::iox_parts {

// RouDi answers a request within milliseconds; this long is a RouDi that hangs.
inline constexpr auto roudi_answer_within = std::chrono::milliseconds(10000);

// RouDi's IPC channel: a Unix-domain datagram socket, iceoryx 2.0's IOX_UDS_SOCKET_PATH_PREFIX
// followed by IPC_CHANNEL_ROUDI_NAME ("/tmp/roudi").
std::string roudi_socket_path();

// True when something is bound to RouDi's socket: a datagram connect() fails at once when
// nobody is (the file of a RouDi that was killed stays behind). `why` gets the error otherwise.
// PoshRuntime::initRuntime must never be called without this: with no RouDi it waits a minute
// and then ends the process.
bool roudi_answers(std::string& why);
// The same for any datagram socket's path.
bool socket_answers(const std::string& path, std::string& why);

// The one line for a missing RouDi, naming what to do.
std::string no_roudi_message(const std::string& why);

// Watches RouDi while this process waits on it. iceoryx 2.0 waits for every answer of RouDi
// (registering, making a port, unregistering) without a timeout, so a RouDi that dies or hangs
// meanwhile would hold the process forever: when RouDi stops answering on its socket, or
// `within` passes, the watch says so in one line on stderr and ends the process with exit
// status 3 (ExitStatus::runtime), since the thread inside iceoryx cannot be woken. It removes
// the socket and lock file of the runtime `runtime_name` first, which its destructor would.
class RoudiWatch {
public:
  RoudiWatch(const char* doing, std::chrono::milliseconds within, const std::string& runtime_name);
  ~RoudiWatch();

  RoudiWatch(const RoudiWatch&) = delete;
  RoudiWatch& operator=(const RoudiWatch&) = delete;

private:
  void watch(std::string doing, std::chrono::milliseconds within);

  std::string m_runtime_socket; // its files, named as iceoryx names them
  std::string m_runtime_lock;

  std::mutex m_mutex;
  std::condition_variable m_done_changed;
  bool m_done = false;
  std::thread m_thread;
};

// An iox-roudi this process started (fork and exec, from PATH), stopped by its PID: SIGTERM,
// on which RouDi removes its shared memory and sockets itself, then SIGKILL after a grace.
// It gets SIGTERM should this process die first (PR_SET_PDEATHSIG).
class OwnedRoudi final : public PairService {
public:
  // Starts it and waits until it answers, at most `ready_within`; throws TransportError with
  // the reason (not on PATH, exited, never answered).
  explicit OwnedRoudi(std::chrono::milliseconds ready_within);
  ~OwnedRoudi() override;

  OwnedRoudi(const OwnedRoudi&) = delete;
  OwnedRoudi& operator=(const OwnedRoudi&) = delete;

  // "" when it was still running; otherwise how it ended early.
  std::string stop() noexcept override;
  pid_t pid() const noexcept { return m_pid; }

private:
  // A file RouDi made, as it was once RouDi was ready.
  struct MadeFile {
    std::string path;
    dev_t device = 0;
    ino_t inode = 0;
  };

  // Notes the files it made (built-in names: its management segment, the segment named after
  // this process's group, its socket and locks), to remove them should it be killed.
  void note_files();
  // Removes those that are still the ones it made; a RouDi killed outright cannot.
  void remove_what_it_left() noexcept;

  pid_t m_pid = -1;
  std::vector<MadeFile> m_files;
};

// A RouDi that was running already (the user's): used as it is and left running.
class BorrowedRoudi final : public PairService {
public:
  std::string stop() noexcept override { return {}; }
};

} // namespace netprof::iox_parts
