#include "core/process/local_pair.hpp"

#include "core/process/child_process.hpp"
#include "core/process/member_wait.hpp"
#include "core/process/publisher_reports.hpp"
#include "core/process/ready_signal.hpp"
#include "core/process/role_command.hpp"
#include "core/process/stop_flag.hpp"

#include <netprof/clock.hpp>
#include <netprof/errors.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
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

std::optional<Clock::time_point> earliest(std::optional<Clock::time_point> deadline,
                                          Clock::time_point other)
{
  return deadline && *deadline < other ? deadline : other;
}

// A child process of the pair.
class ChildProcess final : public PairMember {
public:
  // `held_output`: the file its standard output goes to, which it then owns; -1 for none.
  explicit ChildProcess(pid_t pid, int held_output = -1) noexcept
      : m_pid(pid), m_exit_fd(open_process_exit_fd(pid)), m_held_output(held_output)
  {
  }
  ~ChildProcess() override
  {
    if (m_exit_fd >= 0)
      close(m_exit_fd);
    if (m_held_output >= 0)
      close(m_held_output);
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
  void print_held_output() override
  {
    if (m_held_output >= 0)
      print_file(m_held_output);
  }

private:
  pid_t m_pid;
  int m_exit_fd;
  int m_held_output;
};

// Starts the pair's members as processes of this same binary, each from its command line.
class ProcessLauncher final : public PairLauncher {
public:
  ProcessLauncher(const LocalPairArguments& forwarded, const TransportPlan& plan)
      : m_forwarded(forwarded), m_transport_args(plan.local_pair), m_program(self_executable())
  {
  }

  // Publisher 0 writes its report as it finishes; a later one's is held until the pair prints
  // it after those before it.
  std::unique_ptr<PairMember> start_publisher(std::uint32_t id) override
  {
    const auto subscribers = static_cast<std::uint32_t>(m_transport_args.subscribers.size());
    m_ready = std::make_unique<ReadySignal>();
    const int held_output = id == 0 ? -1 : held_output_file();
    pid_t pid = 0;
    try {
      pid = spawn(m_program,
                  local_pair_role_arguments(Role::publisher, m_forwarded.publisher,
                                            m_transport_args.publisher, id, subscribers),
                  m_ready->child_environment(), held_output);
    } catch (...) {
      if (held_output >= 0)
        close(held_output);
      throw;
    }
    m_ready->close_write_end();
    m_first_subscriber = id + 1;
    return std::make_unique<ChildProcess>(pid, held_output);
  }

  bool wait_until_publisher_ready(std::optional<Clock::time_point> deadline) override
  {
    return m_ready->wait(deadline);
  }

  std::unique_ptr<PairMember> start_subscriber(std::uint32_t id) override
  {
    return std::make_unique<ChildProcess>(spawn(
        m_program,
        local_pair_role_arguments(Role::subscriber, m_forwarded.subscriber,
                                  m_transport_args.subscribers.at(id - m_first_subscriber), id,
                                  static_cast<std::uint32_t>(m_transport_args.subscribers.size())),
        environment_without_ready_signal()));
  }

private:
  const LocalPairArguments& m_forwarded;
  const LocalPairPlan m_transport_args; // the publisher's, and each subscriber's
  const std::string m_program;
  std::unique_ptr<ReadySignal> m_ready; // the publisher's started last
  std::uint32_t m_first_subscriber = 1; // the id after the last publisher's
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
                         std::uint32_t first_id, bool forwarded_stop)
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
      if (subscribers.size() > 1 || first_id > 1) // which one, in a local group
        line.append(" ").append(std::to_string(first_id + i));
      line.append(" exited with status ").append(std::to_string(status)).append("\n");
      std::cerr << line; // one write, so a child's output cannot split the line
    }
  }
  return failed_status;
}

// Starts `count` publishers in turn, each ready before the next starts, into `publishers`.
// The exit status of one that was not ready (it failed, and said why, or the pair was
// interrupted), once every other one started is ended; none when all are ready.
std::optional<int> start_publishers(std::uint32_t count, PairLauncher& launcher,
                                    std::optional<Clock::time_point> deadline, bool& forwarded_stop,
                                    std::vector<std::unique_ptr<PairMember>>& publishers)
{
  for (std::uint32_t id = 0; id < count; ++id) {
    try {
      publishers.push_back(launcher.start_publisher(id));
    } catch (...) {
      for (const auto& started : publishers)
        end_member(*started, subscriber_grace);
      throw;
    }
    if (!launcher.wait_until_publisher_ready(deadline)) {
      const int status = wait_for_member(*publishers.back(), "publisher", deadline, forwarded_stop);
      publishers.back()->print_held_output();
      publishers.pop_back();
      for (const auto& started : publishers)
        end_member(*started, subscriber_grace);
      return status;
    }
  }
  return std::nullopt;
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
                                                   std::uint32_t id, std::uint32_t subscribers)
{
  const bool publisher = role == Role::publisher;
  std::vector<std::string> args = {"-i", std::to_string(id)};
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
  // Both members bound their own waits; these deadlines only catch a hung one.
  bool forwarded_stop = false;
  std::optional<Clock::time_point> publisher_deadline;
  if (!config.count && config.send_hz <= 0)
    publisher_deadline =
        Clock::now() +
        from_seconds(2 * config.wait_seconds + config.warmup_seconds + config.test_seconds + 30.0);

  std::vector<std::unique_ptr<PairMember>> publishers;
  const std::uint32_t publisher_count = std::max<std::uint32_t>(config.publishers, 1);
  if (const std::optional<int> failed = start_publishers(
          publisher_count, launcher, publisher_deadline, forwarded_stop, publishers))
    return *failed;
  std::vector<std::unique_ptr<PairMember>> subscribers;
  const std::uint32_t count = std::max<std::uint32_t>(config.subscribers, 1);
  try {
    for (std::uint32_t id = publisher_count; id < publisher_count + count; ++id)
      subscribers.push_back(launcher.start_subscriber(id));
  } catch (...) {
    for (const auto& publisher : publishers)
      publisher->end_now();
    for (const auto& subscriber : subscribers)
      end_member(*subscriber, subscriber_grace);
    throw;
  }
  // In order, so each publisher's report follows the one before it.
  int publisher_status = 0;
  for (const auto& publisher : publishers) {
    const int status = wait_for_member(*publisher, "publisher", publisher_deadline, forwarded_stop);
    publisher->print_held_output();
    if (status != 0 && publisher_status == 0)
      publisher_status = status;
  }
  if (publisher_status != 0) {
    // A publisher failed (at once, say, on a port in use, or after a failed run): the
    // subscribers have nothing left to wait for, and their reports are not printed, so they are
    // stopped now rather than left to give up on their own after --wait. Their goodbye is an
    // interrupted one's (departing counters to a publisher that is gone); one that does not go
    // is ended.
    for (const auto& subscriber : subscribers)
      end_member(*subscriber, subscriber_grace);
    return publisher_status;
  }
  return wait_for_subscribers(config, subscribers, publisher_count, forwarded_stop);
}

int run_local_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                   const TransportPlan& plan)
{
  plan.clean_up_after_killed_pairs();
  const std::unique_ptr<PairService> service = plan.start_pair_service();
  ProcessLauncher launcher(forwarded, plan);
  int status = run_pair(config, launcher);
  if (config.publishers > 1 && !config.json_path.empty() && !json_on_stdout(config)) {
    status = exit_status_of(std::cerr, [&] {
      gather_publisher_reports(config.json_path, config.publishers);
      return status;
    });
  }
  return stop_pair_service(service.get(), status);
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
