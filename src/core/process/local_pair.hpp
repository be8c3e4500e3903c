#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <netprof/clock.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace netprof {

// The command line of one process of --local-pair: its id, the user's options routed to it
// (`forwarded`, as the command line gave them: see route_to_local_pair), what the pair fixes
// itself (a publisher waits for its `subscribers`; each subscriber is quiet, since the
// publishers' reports cover them all) and the transport's arguments for it. `id` is its -i:
// a publisher's 0 to --publishers - 1, then the subscribers' (1 to `subscribers` with one
// publisher).
std::vector<std::string> local_pair_role_arguments(Role role,
                                                   const std::vector<std::string>& forwarded,
                                                   const std::vector<std::string>& transport_args,
                                                   std::uint32_t id, std::uint32_t subscribers = 1);

// One member of a local pair, a child process or a thread, as the pair waits for it.
class PairMember {
public:
  virtual ~PairMember() = default;
  // Its exit status once it has finished; none while it runs. Never blocks.
  virtual std::optional<int> finished() = 0;
  // Once it has finished: prints what it wrote and the pair held back so that several
  // publishers' reports do not interleave (a publisher after the first). Nothing for others.
  virtual void print_held_output() {}
  // A descriptor that turns readable once it has finished, so the pair can sleep until then
  // (member_wait.hpp); -1 where there is none, and the pair looks every few milliseconds.
  virtual int finished_fd() const noexcept = 0;
  // Passes an interrupt on: it stops its run and reports, as after Ctrl-C.
  virtual void stop() noexcept = 0;
  // Past its deadline: ends it at once, if it can (a process is killed; a thread cannot be,
  // and is left to the end of the process). Returns its exit status: ExitStatus::runtime.
  virtual int end_now() = 0;
  // What end_now() did, for the line that says so: "was killed".
  virtual const char* ended_now() const noexcept = 0;
};

// How a local pair starts its members: as processes (run_local_pair) or threads
// (run_thread_pair). Each throws what stops the pair from starting (TransportError).
class PairLauncher {
public:
  virtual ~PairLauncher() = default;
  // Publisher `id`, 0 to the pair's --publishers - 1.
  virtual std::unique_ptr<PairMember> start_publisher(std::uint32_t id) = 0;
  // True once the publisher started last got through its set-up (endpoint open, payload
  // checked); false when it finished first, the process was interrupted or `deadline` passed.
  virtual bool wait_until_publisher_ready(std::optional<Clock::time_point> deadline) = 0;
  // Subscriber `id`, --publishers to --publishers + --subscribers - 1.
  virtual std::unique_ptr<PairMember> start_subscriber(std::uint32_t id) = 0;
};

// The pair's one sequence, whatever its members are: the publisher first (each of
// --publishers in turn), and the subscribers (--subscribers of them: a local group) once the
// publishers are set up, so an error of set-up that all would hit is printed once; an
// interrupt passed on to each; a member past its deadline ended. Returns the exit status: the
// first failed publisher's, else the first failed subscriber's.
int run_pair(const RunConfig& config, PairLauncher& launcher);

// Runs a publisher and --subscribers subscribers of this same binary as processes; the
// publisher's report is printed. Returns the exit status (the publisher's, unless only a
// subscriber failed).
int run_local_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                   const TransportPlan& plan);

// Stops the transport's pair service (if any) once the pair is over, and says on stderr what
// went wrong with it meanwhile; a pair that passed then fails with ExitStatus::runtime.
// Returns the pair's exit status.
int stop_pair_service(PairService* service, int status);

// Stops and reaps a child process: SIGTERM, then SIGKILL if it is still there after `grace`.
// Returns its exit status in our terms (killed: ExitStatus::runtime).
int end_child(pid_t pid, Nanoseconds grace);

} // namespace netprof
