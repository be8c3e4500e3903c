#include "core/process/local_pair.hpp"

#include "core/process/member_wait.hpp"
#include "core/process/ready_signal.hpp"
#include "core/process/stop_flag.hpp"

#include <netprof/clock.hpp>
#include <netprof/errors.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace netprof {

namespace {

// How long a subscriber has to leave once stopped (a child: SIGTERM) before it is ended.
constexpr auto subscriber_grace = std::chrono::seconds(2);
// How long each member has, once an interrupt was passed on to it, to finish its report and
// leave before it is ended. An interrupted publisher collects final counters for 0.5 s, then
// reports: well within this.
constexpr auto interrupt_grace = std::chrono::seconds(5);

std::string self_executable()
{
  char path[4096];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0)
    throw TransportError("cannot find this executable to start the local pair: " +
                         std::string(std::strerror(errno)));
  return std::string(path, static_cast<std::size_t>(length));
}

// NULL-terminated pointers into `strings`, as exec wants them.
std::vector<char*> pointers(const std::vector<std::string>& strings)
{
  std::vector<char*> result;
  for (const auto& text : strings)
    result.push_back(const_cast<char*>(text.c_str()));
  result.push_back(nullptr);
  return result;
}

pid_t spawn(const std::string& program, std::vector<std::string> args,
            const std::vector<std::string>& environment)
{
  args.insert(args.begin(), program);
  std::vector<char*> argv = pointers(args);
  std::vector<char*> envp = pointers(environment);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), envp.data());
  if (error != 0)
    throw TransportError("cannot start " + program + ": " + std::strerror(error));
  return pid;
}

// Exit status of a finished child in our documented terms; a crash counts as a runtime error.
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

std::optional<Clock::time_point> earliest(std::optional<Clock::time_point> deadline,
                                          Clock::time_point other)
{
  return deadline && *deadline < other ? deadline : other;
}

// A child process of the pair.
class ChildProcess final : public PairMember {
public:
  explicit ChildProcess(pid_t pid) noexcept : m_pid(pid), m_exit_fd(open_process_exit_fd(pid)) {}
  ~ChildProcess() override
  {
    if (m_exit_fd >= 0)
      close(m_exit_fd);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  std::optional<int> finished() override { return reap(m_pid); }
  int finished_fd() const noexcept override { return m_exit_fd; }
  void stop() noexcept override { kill(m_pid, SIGTERM); }
  int end_now() override
  {
    kill(m_pid, SIGKILL);
    int ignored = 0;
    waitpid(m_pid, &ignored, 0);
    return static_cast<int>(ExitStatus::runtime);
  }
  const char* ended_now() const noexcept override { return "was killed"; }

private:
  pid_t m_pid;
  int m_exit_fd;
};

// Starts the pair's members as processes of this same binary, each from its command line.
class ProcessLauncher final : public PairLauncher {
public:
  ProcessLauncher(const LocalPairArguments& forwarded, const TransportPlan& plan)
      : m_forwarded(forwarded), m_transport_args(plan.local_pair), m_program(self_executable())
  {
  }

  std::unique_ptr<PairMember> start_publisher() override
  {
    const auto subscribers = static_cast<std::uint32_t>(m_transport_args.subscribers.size());
    const pid_t pid = spawn(m_program,
                            local_pair_role_arguments(Role::publisher, m_forwarded.publisher,
                                                      m_transport_args.publisher, 1, subscribers),
                            m_ready.child_environment());
    m_ready.close_write_end();
    return std::make_unique<ChildProcess>(pid);
  }

  bool wait_until_publisher_ready(std::optional<Clock::time_point> deadline) override
  {
    return m_ready.wait(deadline);
  }

  std::unique_ptr<PairMember> start_subscriber(std::uint32_t id) override
  {
    return std::make_unique<ChildProcess>(spawn(
        m_program,
        local_pair_role_arguments(Role::subscriber, m_forwarded.subscriber,
                                  m_transport_args.subscribers.at(id - 1), id,
                                  static_cast<std::uint32_t>(m_transport_args.subscribers.size())),
        environment_without_ready_signal()));
  }

private:
  const LocalPairArguments& m_forwarded;
  const LocalPairPlan m_transport_args; // the publisher's, and each subscriber's
  const std::string m_program;
  ReadySignal m_ready;
};

// Waits for a member, passing an interrupt on to it (once; `forwarded_stop` says whether that
// happened already) and giving it interrupt_grace from then. A member past its deadline is
// ended: the parent never exits before its children, so nothing they write comes after it.
int wait_for_member(PairMember& member, const char* role, std::optional<Clock::time_point> deadline,
                    bool& forwarded_stop)
{
  for (;;) {
    if (auto status = member.finished())
      return *status;
    if (process_stop_flag().requested() && !forwarded_stop) {
      forwarded_stop = true;
      member.stop();
      deadline = earliest(deadline, Clock::now() + interrupt_grace);
    }
    if (deadline && Clock::now() >= *deadline) {
      const int status = member.end_now();
      // One write, so a child's output cannot split the line.
      std::cerr << ("netprof: the local " + std::string(role) + " did not finish in time and " +
                    member.ended_now() + "\n");
      return status;
    }
    // Once the stop is passed on, its doorbell (readable from then on) no longer wakes us.
    sleep_until_readable(member.finished_fd(), forwarded_stop ? -1 : process_stop_flag().doorbell(),
                         deadline);
  }
}

// Stops a member as an interrupt would, and ends it if it is still there after `grace`.
int end_member(PairMember& member, Nanoseconds grace)
{
  if (auto status = member.finished())
    return *status;
  member.stop();
  const auto give_up = Clock::now() + grace;
  while (Clock::now() < give_up) {
    if (auto status = member.finished())
      return *status;
    sleep_until_readable(member.finished_fd(), -1, give_up);
  }
  return member.end_now();
}

// Once the publisher has finished well: each subscriber in turn, under one deadline; the first
// that failed names itself and gives the pair's exit status.
int wait_for_subscribers(const RunConfig& config,
                         const std::vector<std::unique_ptr<PairMember>>& subscribers,
                         bool forwarded_stop)
{
  std::optional<Clock::time_point> deadline =
      Clock::now() + from_seconds(config.idle_timeout_seconds + config.wait_seconds + 5.0);
  if (forwarded_stop) {
    for (const auto& subscriber : subscribers)
      subscriber->stop();
    deadline = earliest(deadline, Clock::now() + interrupt_grace);
  }
  int failed_status = 0;
  for (std::size_t i = 0; i < subscribers.size(); ++i) {
    bool forwarded = forwarded_stop;
    const int status = wait_for_member(*subscribers[i], "subscriber", deadline, forwarded);
    if (status != 0 && failed_status == 0) {
      failed_status = status;
      std::string line = "netprof: the local subscriber";
      if (subscribers.size() > 1) // which one, in a local group
        line.append(" ").append(std::to_string(i + 1));
      line.append(" exited with status ").append(std::to_string(status)).append("\n");
      std::cerr << line; // one write, so a child's output cannot split the line
    }
  }
  return failed_status;
}

} // namespace

int end_child(pid_t pid, Nanoseconds grace)
{
  ChildProcess child(pid);
  return end_member(child, grace);
}

std::vector<std::string> local_pair_role_arguments(Role role,
                                                   const std::vector<std::string>& forwarded,
                                                   const std::vector<std::string>& transport_args,
                                                   std::uint32_t subscriber_id,
                                                   std::uint32_t subscribers)
{
  const bool publisher = role == Role::publisher;
  std::vector<std::string> args = {"-i", publisher ? "0" : std::to_string(subscriber_id)};
  args.insert(args.end(), forwarded.begin(), forwarded.end());
  if (publisher)
    args.insert(args.end(), {"--subscribers", std::to_string(subscribers)});
  else
    args.push_back("--quiet");
  args.insert(args.end(), transport_args.begin(), transport_args.end());
  return args;
}

int run_pair(const RunConfig& config, PairLauncher& launcher)
{
  const std::unique_ptr<PairMember> publisher = launcher.start_publisher();

  // Both members bound their own waits; these deadlines only catch a hung one.
  bool forwarded_stop = false;
  std::optional<Clock::time_point> publisher_deadline;
  if (!config.count && config.send_hz <= 0)
    publisher_deadline =
        Clock::now() +
        from_seconds(2 * config.wait_seconds + config.warmup_seconds + config.test_seconds + 30.0);
  // Not ready: it failed (and said why), or the pair was interrupted.
  if (!launcher.wait_until_publisher_ready(publisher_deadline))
    return wait_for_member(*publisher, "publisher", publisher_deadline, forwarded_stop);
  std::vector<std::unique_ptr<PairMember>> subscribers;
  const std::uint32_t count = std::max<std::uint32_t>(config.subscribers, 1);
  try {
    for (std::uint32_t id = 1; id <= count; ++id)
      subscribers.push_back(launcher.start_subscriber(id));
  } catch (...) {
    publisher->end_now();
    for (const auto& subscriber : subscribers)
      end_member(*subscriber, subscriber_grace);
    throw;
  }
  const int publisher_status =
      wait_for_member(*publisher, "publisher", publisher_deadline, forwarded_stop);
  if (publisher_status != 0) {
    // The publisher failed (at once, say, on a port in use, or after a failed run): the
    // subscribers have nothing left to wait for, and their reports are not printed, so they are
    // stopped now rather than left to give up on their own after --wait. Their goodbye is an
    // interrupted one's (departing counters to a publisher that is gone); one that does not go
    // is ended.
    for (const auto& subscriber : subscribers)
      end_member(*subscriber, subscriber_grace);
    return publisher_status;
  }
  return wait_for_subscribers(config, subscribers, forwarded_stop);
}

int run_local_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                   const TransportPlan& plan)
{
  plan.clean_up_after_killed_pairs();
  const std::unique_ptr<PairService> service = plan.start_pair_service();
  ProcessLauncher launcher(forwarded, plan);
  return stop_pair_service(service.get(), run_pair(config, launcher));
}

int stop_pair_service(PairService* service, int status)
{
  if (!service)
    return status;
  const std::string problem = service->stop();
  if (problem.empty())
    return status;
  std::cerr << ("netprof: " + problem + "\n");
  return status == 0 ? static_cast<int>(ExitStatus::runtime) : status;
}

} // namespace netprof
