#include "iox_runtime.hpp"

#include "roudi.hpp"

#include <netprof/errors.hpp>

#include <iceoryx_hoofs/error_handling/error_handling.hpp>
#include <iceoryx_hoofs/internal/relocatable_pointer/base_relative_pointer.hpp>
#include <iceoryx_hoofs/log/logmanager.hpp>
#include <iceoryx_hoofs/platform/platform_settings.hpp>
#include <iceoryx_posh/internal/runtime/posh_runtime_impl.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>

namespace netprof::iox_parts {

namespace {

// iceoryx's own runtime, with a lifetime of our choosing: PoshRuntime's default factory keeps
// it in a function-local static, alive until the process exits. Its constructor is protected
// for derived classes, which is how iceoryx's own tests replace it.
class OwnedRuntime final : public iox::runtime::PoshRuntimeImpl {
public:
  explicit OwnedRuntime(const iox::RuntimeName_t& name)
      : PoshRuntimeImpl(iox::cxx::make_optional<const iox::RuntimeName_t*>(&name))
  {
  }

  // Makes PoshRuntime::getInstance(), which every port calls, return the live runtime.
  static void install_factory() { setRuntimeFactory(&current); }

  static iox::runtime::PoshRuntime& current(iox::cxx::optional<const iox::RuntimeName_t*>) noexcept;
};

// iceoryx's own error handler logs (off here), asserts on SEVERE errors in Debian's build
// (which has assertions) and ends the process with std::terminate on FATAL ones. netprof asks
// for sizes no mempool has on purpose (SEVERE), and a FATAL error leaves iceoryx unusable: one
// line naming it and exit status 3, as for any runtime error.
// The name the live runtime registered under, for the files it leaves when the process ends
// from here.
std::string live_name;

void on_iceoryx_error(const iox::Error error, const std::function<void()>,
                      const iox::ErrorLevel level)
{
  if (level != iox::ErrorLevel::FATAL)
    return;
  // Most often RouDi went away under a request (a port it could not make comes back null).
  std::string why;
  const std::string cause =
      roudi_answers(why) ? std::string() : "RouDi stopped answering (" + why + "), so ";
  const std::string line =
      "netprof: " + cause + "iceoryx failed: " + iox::ErrorHandler::toString(error) + "\n";
  [[maybe_unused]] const auto written = write(STDERR_FILENO, line.data(), line.size());
  if (!live_name.empty()) {
    unlink((iox::platform::IOX_UDS_SOCKET_PATH_PREFIX + live_name).c_str());
    unlink((iox::platform::IOX_LOCK_FILE_PATH_PREFIX + live_name + ".lock").c_str());
  }
  _exit(3);
}

std::mutex lease_mutex;
std::condition_variable runtime_gone; // the last lease's destructor finished
std::weak_ptr<RuntimeLease> live_lease;
std::unique_ptr<OwnedRuntime> live_runtime;
unsigned registrations = 0;

iox::runtime::PoshRuntime&
OwnedRuntime::current(iox::cxx::optional<const iox::RuntimeName_t*>) noexcept
{
  // Ports are made only while a lease holds the runtime (endpoints own both).
  return *live_runtime;
}

} // namespace

std::shared_ptr<RuntimeLease> RuntimeLease::acquire()
{
  std::unique_lock lock(lease_mutex);
  if (std::shared_ptr<RuntimeLease> lease = live_lease.lock())
    return lease;
  // The last lease expired but its destructor (another thread's) has not run yet: one runtime
  // at a time.
  runtime_gone.wait(lock, [] { return !live_runtime; });
  std::string why;
  if (!roudi_answers(why))
    throw TransportError(no_roudi_message(why));
  if (registrations == 0) {
    // iceoryx logs to stderr on its own (a keep-alive RouDi did not take, a chunk size no
    // mempool has, which netprof asks on purpose); netprof says what matters itself.
    iox::log::LogManager::GetLogManager().SetDefaultLogLevel(
        iox::log::LogLevel::kOff, iox::log::LogLevelOutput::kHideLogLevel);
    OwnedRuntime::install_factory();
    // For the life of the process (iceoryx offers it as "temporary": restored when destroyed).
    static const iox::cxx::GenericRAII handler =
        iox::ErrorHandler::setTemporaryErrorHandler(on_iceoryx_error);
  }
  // A new name for each registration: RouDi may not yet have forgotten the previous one.
  const std::string name =
      "netprof_" + std::to_string(getpid()) + "_" + std::to_string(++registrations);
  live_name = name;
  {
    const RoudiWatch watch("registering with it", roudi_answer_within, name);
    live_runtime =
        std::make_unique<OwnedRuntime>(iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name));
  }
  std::shared_ptr<RuntimeLease> lease(new RuntimeLease(name));
  live_lease = lease;
  return lease;
}

RuntimeLease::~RuntimeLease()
{
  const std::lock_guard lock(lease_mutex);
  std::string why;
  if (roudi_answers(why)) {
    // Unregisters from RouDi and unmaps its segments.
    const RoudiWatch watch("unregistering from it", roudi_answer_within, m_name);
    live_runtime.reset();
  } else {
    // The same without RouDi, whose refusal iceoryx would print on stderr itself, past our
    // logger, after netprof said what happened.
    const int saved = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved >= 0 && null >= 0)
      dup2(null, STDERR_FILENO);
    live_runtime.reset();
    if (saved >= 0 && null >= 0)
      dup2(saved, STDERR_FILENO);
    for (const int fd : {saved, null})
      if (fd >= 0)
        close(fd);
  }
  // iceoryx 2.0 leaves the unmapped segments registered for its relative pointers, and would
  // keep resolving them to the old addresses after the next registration maps them anew.
  iox::rp::BaseRelativePointer::unregisterAll();
  live_name.clear();
  runtime_gone.notify_all();
}

} // namespace netprof::iox_parts
