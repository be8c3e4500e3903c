// --local-pair --threads in this test's own process: the publisher and the subscriber as two
// threads, each with its own endpoint, over real shm and udp. Short runs, so ThreadSanitizer
// runs them too (scripts/setup/sanitize.sh): whatever the two roles share in one process shows
// up there. gtest_discover_tests runs each test in a process of its own, so one may set the
// process's stop flag.

#include "core/process/stop_flag.hpp"
#include "core/process/thread_pair.hpp"

#include <netprof/cli.hpp>

#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace netprof;
using namespace std::chrono_literals;

ParsedCommandLine parse(std::vector<std::string> args)
{
  static TransportRegistry registry = [] {
    TransportRegistry builtin;
    register_builtin_transports(builtin);
    return builtin;
  }();
  args.insert(args.begin(), {"netprof", "--local-pair", "--threads"});
  std::vector<const char*> argv;
  for (const auto& arg : args)
    argv.push_back(arg.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), registry);
}

struct PairOutcome {
  int status = -1;
  std::string out;
  std::string err;
};

PairOutcome run_pair_of(const std::vector<std::string>& args)
{
  const ParsedCommandLine parsed = parse(args);
  std::ostringstream out;
  std::ostringstream err;
  PairOutcome outcome;
  outcome.status = run_thread_pair(parsed.config, parsed.local_pair_options, parsed.plan, out, err);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

std::size_t occurrences(const std::string& text, const std::string& part)
{
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

const std::vector<std::string> short_ping_pong = {"--mode", "ping-pong",      "--count",
                                                  "300",    "--warmup-count", "10"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more)
{
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string segment_name(const char* test)
{
  return std::string("thread-pair-") + test + "-" + std::to_string(getpid());
}

cpu_set_t this_threads_cpus()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return set;
}

TEST(ThreadPair, ShmRunsBothRolesAndPrintsThePublishersReportOnly)
{
  const PairOutcome sut =
      run_pair_of(with(short_ping_pong, {"--shm", segment_name("shm"), "--cpu", "0,0"}));

  EXPECT_EQ(sut.status, 0) << sut.out << sut.err;
  EXPECT_EQ(sut.err, "");
  EXPECT_EQ(occurrences(sut.out, "Test: SUCCESS"), 1u) << "the subscriber is quiet";
  EXPECT_NE(sut.out.find("\n  Local pair: threads of one process\n"), std::string::npos) << sut.out;
  EXPECT_NE(sut.out.find("\n  Transport type: shm\n"), std::string::npos) << sut.out;
}

TEST(ThreadPair, PinsTheRolesThreadsNotTheCaller)
{
  const cpu_set_t before = this_threads_cpus();

  const PairOutcome sut = run_pair_of(with(short_ping_pong, {"--cpu", "0,0"}));

  EXPECT_EQ(sut.status, 0) << sut.out << sut.err;
  EXPECT_NE(sut.out.find("\n  CPU pinning: 0\n"), std::string::npos) << sut.out;
  const cpu_set_t after = this_threads_cpus();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(ThreadPair, ASetUpErrorOfThePublisherIsPrintedOnce)
{
  const PairOutcome sut = run_pair_of({"-t", "1", "-s", "2000000000"});

  EXPECT_EQ(sut.status, 2);
  EXPECT_EQ(sut.out, "");
  EXPECT_EQ(occurrences(sut.err, "\n"), 1u) << sut.err;
  EXPECT_EQ(sut.err.rfind("netprof: -s 2000000000 is too large for udp", 0), 0u) << sut.err;
}

TEST(ThreadPair, AnInterruptEndsBothRolesWithAReport)
{
  auto pair = std::async(std::launch::async, [] {
    return run_pair_of({"-t", "30", "--send-hz", "2000"});
  });
  std::this_thread::sleep_for(300ms);
  process_stop_flag().request();

  ASSERT_EQ(pair.wait_for(10s), std::future_status::ready) << "the pair did not stop";
  const PairOutcome sut = pair.get();
  EXPECT_EQ(sut.status, 130) << sut.out << sut.err;
  EXPECT_EQ(occurrences(sut.out, "Test: INTERRUPTED"), 1u) << sut.out;
}

} // namespace
