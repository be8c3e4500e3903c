#include "core/process/thread_pair.hpp"

#include "core/process/local_pair.hpp"
#include "core/process/member_wait.hpp"
#include "core/process/role_command.hpp"
#include "core/process/stop_flag.hpp"

#include <netprof/errors.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <pthread.h>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace netprof {

namespace {

// How often the pair looks whether its publisher is ready.
constexpr auto ready_poll = std::chrono::milliseconds(1);

// What a role's thread shares with the pair. Owned by both, so that a thread the pair leaves
// behind (past its deadline) never touches freed memory before the process ends.
struct RoleState {
  RoleState() = default;
  ~RoleState()
  {
    if (finished_fd >= 0)
      close(finished_fd);
  }
  RoleState(const RoleState&) = delete;
  RoleState& operator=(const RoleState&) = delete;

  StopFlag stop;
  std::atomic<bool> ready{false};
  std::atomic<bool> finished{false};
  int status = 0;            // written before `finished` is set, read after it is seen
  std::ostringstream errors; // the role's error lines, which the pair prints once it finished
  const int finished_fd = open_event_fd(); // readable once `finished` is set
};

// Interrupts are the pair's to take and pass on, as in the process pair: a role's thread leaves
// them to the main thread (and so do the threads it starts: ZeroMQ's, the status line's).
void leave_interrupts_to_the_pair() noexcept
{
  sigset_t interrupts;
  sigemptyset(&interrupts);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&interrupts, signal);
  pthread_sigmask(SIG_BLOCK, &interrupts, nullptr);
}

// One role on a thread of its own.
class RoleThread final : public PairMember {
public:
  RoleThread(std::vector<std::string> args, std::ostream& out, std::ostream& err, bool& left_behind)
      : m_state(std::make_shared<RoleState>()), m_err(err), m_left_behind(left_behind)
  {
    m_thread = std::thread([state = m_state, args = std::move(args), &out] {
      leave_interrupts_to_the_pair();
      const RoleHooks hooks{state->stop,
                            [state] { state->ready.store(true, std::memory_order_release); }};
      state->status = run_role_arguments(args, PairLayout::threads, hooks, out, state->errors);
      state->finished.store(true, std::memory_order_release);
      signal_event_fd(state->finished_fd);
    });
  }
  RoleThread(const RoleThread&) = delete;
  RoleThread& operator=(const RoleThread&) = delete;

  ~RoleThread() override
  {
    if (has_finished()) {
      m_thread.join();
      return;
    }
    m_state->stop.request();
    m_left_behind = true;
    m_thread.detach();
  }

  bool has_finished() const noexcept { return m_state->finished.load(std::memory_order_acquire); }
  bool ready() const noexcept { return m_state->ready.load(std::memory_order_acquire); }

  std::optional<int> finished() override
  {
    if (!has_finished())
      return std::nullopt;
    if (!m_errors_printed) {
      m_err << m_state->errors.str();
      m_errors_printed = true;
    }
    return m_state->status;
  }
  int finished_fd() const noexcept override { return m_state->finished_fd; }
  void stop() noexcept override { m_state->stop.request(); }
  int end_now() override
  {
    m_state->stop.request();
    m_left_behind = true;
    return static_cast<int>(ExitStatus::runtime);
  }
  const char* ended_now() const noexcept override
  {
    return "cannot be killed: the process ends without it";
  }

private:
  std::shared_ptr<RoleState> m_state;
  std::ostream& m_err;
  bool& m_left_behind;
  bool m_errors_printed = false;
  std::thread m_thread; // last: started once the rest is in place
};

class ThreadLauncher final : public PairLauncher {
public:
  ThreadLauncher(const LocalPairArguments& forwarded, const TransportPlan& plan, std::ostream& out,
                 std::ostream& err)
      : m_forwarded(forwarded), m_transport_args(plan.local_pair.pair()), m_out(out), m_err(err)
  {
  }

  // --threads runs one publisher (the command line refuses more).
  std::unique_ptr<PairMember> start_publisher(std::uint32_t /*id*/) override
  {
    auto publisher = start(Role::publisher, m_forwarded.publisher, m_transport_args.publisher);
    m_publisher = publisher.get();
    return publisher;
  }

  // Polls, as the process pair polls its pipe: the publisher's set-up takes milliseconds.
  bool wait_until_publisher_ready(std::optional<Clock::time_point> deadline) override
  {
    while (!process_stop_flag().requested() && (!deadline || Clock::now() < *deadline)) {
      // In this order: a publisher that finished had said whether it was ready before.
      const bool finished = m_publisher->has_finished();
      if (m_publisher->ready())
        return true;
      if (finished)
        return false;
      std::this_thread::sleep_for(ready_poll);
    }
    return false;
  }

  // --threads runs one subscriber (the command line refuses more).
  std::unique_ptr<PairMember> start_subscriber(std::uint32_t /*id*/) override
  {
    return start(Role::subscriber, m_forwarded.subscriber, m_transport_args.subscriber);
  }

  bool left_a_thread_behind() const noexcept { return m_left_behind; }

private:
  std::unique_ptr<RoleThread> start(Role role, const std::vector<std::string>& forwarded,
                                    const std::vector<std::string>& transport_args)
  {
    return std::make_unique<RoleThread>(
        local_pair_role_arguments(role, forwarded, transport_args, role == Role::publisher ? 0 : 1),
        m_out, m_err, m_left_behind);
  }

  const LocalPairArguments& m_forwarded;
  const LocalPairArguments m_transport_args;
  std::ostream& m_out;
  std::ostream& m_err;
  const RoleThread* m_publisher = nullptr; // owned by run_pair, which outlives the waits
  bool m_left_behind = false;
};

} // namespace

int run_thread_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                    const TransportPlan& plan, std::ostream& out, std::ostream& err)
{
  plan.clean_up_after_killed_pairs();
  const std::unique_ptr<PairService> service = plan.start_pair_service();
  ThreadLauncher launcher(forwarded, plan, out, err);
  const int status = exit_status_of(err, [&] { return run_pair(config, launcher); });
  if (launcher.left_a_thread_behind()) {
    // Returning would run what ends the process (destructors, atexit) under a role that is
    // still running: end here, as the process pair ends a child it kills.
    out.flush();
    err.flush();
    std::_Exit(status);
  }
  return stop_pair_service(service.get(), status);
}

} // namespace netprof
