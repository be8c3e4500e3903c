// The ceiling netprof's Fast DDS stream is compared against: the most messages per second one
// Fast DDS writer moves to one reader in another process, no netprof code, on netprof's loopback
// participant and type wire form, with the QoS of netprof --fastdds-history keep-all (reliable,
// keep-all, at most 1,024 samples: a slow reader pushes back on the writer, nothing is lost).
// The sender writes samples of --size bytes as fast as write() takes them: --warmup seconds
// (not counted), then --seconds measured, then a stop sample. The receiver, in a WaitSet on a
// ReadCondition as netprof's default --fastdds-notify waitset, counts the measured samples and
// their rate on its own clock, from the first to the last.
//
//   bare_fastdds_stream [--size BYTES] [--seconds S] [--warmup S] [--domain ID]
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_fastdds_side.hpp"
#include "bare_two_processes.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using bare::parse_number;
using bare::UsageError;
using bare_fastdds::Bytes;
using bare_fastdds::Side;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_fastdds_stream";
constexpr const char* usage = "usage: bare_fastdds_stream [--size BYTES (=180)] [--seconds S (=3)] "
                              "[--warmup S (=0.5)]\n"
                              "       [--domain ID (=79)]\n";
// The first byte of each sample: what it is.
constexpr std::uint8_t warming = 1;
constexpr std::uint8_t measured = 2;
constexpr std::uint8_t stop = 3;
constexpr auto give_up_after = std::chrono::seconds(20);

struct Options {
  std::size_t size = 180;
  double seconds = 3;
  double warmup = 0.5;
  std::uint32_t domain = 79;
};

struct Figures {
  std::uint64_t received = 0;
  double seconds = 0;
};

bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size")
    options.size = parse_number<std::size_t>(value, 1, 1u << 20, "--size must be 1 to 1048576");
  else if (flag == "--seconds")
    options.seconds = parse_number<int>(value, 1, 99, "--seconds must be 1 to 99");
  else if (flag == "--warmup")
    options.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  else if (flag == "--domain")
    options.domain = parse_number<std::uint32_t>(value, 0, 232, "--domain must be 0 to 232");
  else
    return false;
  return true;
}

bare_fastdds::SideSettings side_settings(const Options& options)
{
  return {options.domain, false, true};
}

// Writes samples of `kind` until `until`, each as soon as the writer takes it.
void write_until(Side& side, std::vector<std::uint8_t>& sample, std::uint8_t kind,
                 Clock::time_point until)
{
  sample[0] = kind;
  while (Clock::now() < until)
    side.try_write(sample); // false: the reader lags, the writer waited 1 ms; write again
}

// The child: waits for the receiver, then warms up, measures and stops.
void run_sender(const Options& options, const std::string& topic)
{
  Side side(side_settings(options), topic + "_data", topic + "_back", [](const Bytes&) {});
  const auto give_up = Clock::now() + give_up_after;
  while (!side.writer_matched())
    if (Clock::now() > give_up)
      throw std::runtime_error{"the receiver was never matched"};
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<std::uint8_t> sample(options.size, 0x5a);
  const auto start = Clock::now();
  const auto warm_for = std::chrono::duration<double>(options.warmup);
  const auto measure_for = std::chrono::duration<double>(options.seconds);
  write_until(side, sample, warming, start + std::chrono::duration_cast<Clock::duration>(warm_for));
  write_until(side, sample, measured,
              start + std::chrono::duration_cast<Clock::duration>(warm_for + measure_for));
  sample[0] = stop;
  while (!side.try_write(sample) && Clock::now() < give_up + measure_for) {
  }
  side.finish();
}

Figures run_receiver(const Options& options, const std::string& topic)
{
  Figures figures;
  bool stopped = false;
  Clock::time_point first;
  Clock::time_point last;
  Side side(side_settings(options), topic + "_back", topic + "_data", [&](const Bytes& sample) {
    if (sample.in.empty() || sample.in[0] == warming)
      return;
    if (sample.in[0] == stop) {
      stopped = true;
      return;
    }
    last = Clock::now();
    if (figures.received++ == 0)
      first = last;
  });
  const auto give_up =
      Clock::now() + give_up_after + std::chrono::duration<double>(options.seconds);
  while (!stopped && Clock::now() < give_up)
    side.wait(std::chrono::milliseconds(100));
  if (!stopped || figures.received < 2)
    throw std::runtime_error{"no stop, or nothing measured"};
  figures.seconds = std::chrono::duration<double>(last - first).count();
  return figures;
}

int run(const Options& options)
{
  const std::string topic = "bare_fastdds_stream_" + std::to_string(getpid());
  return bare::run_two_processes(
      {program, "receiver", "sender", std::chrono::seconds(10)},
      [&] { run_sender(options, topic); }, [&] { return run_receiver(options, topic); },
      [&](Figures figures) {
        std::printf("{\"transport\":\"fastdds\",\"size\":%zu,\"received\":%llu,"
                    "\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
                    options.size, static_cast<unsigned long long>(figures.received),
                    figures.seconds, static_cast<double>(figures.received) / figures.seconds);
      });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, bare::command_line_parser<Options>(take_option),
                        run);
}
