#include <netprof/report.hpp>

#include <charconv>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

// Host facts make a saved result explain itself (which kernel, CPU, clock, socket limits).
// They are best effort: a missing /proc or /sys file (containers, other kernels) leaves the
// field empty or 0 rather than failing a run that has already measured something.

namespace netprof {

namespace {

std::string first_line(const char* path)
{
  std::ifstream in(path);
  std::string line;
  if (in) {
    std::getline(in, line);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) {
    line.pop_back();
  }
  return line;
}

// The number a file's first line starts with (blanks before it allowed), or none when there is
// no such file or it starts with no number.
std::optional<std::uint64_t> optional_u64(const char* path)
{
  const std::string text = first_line(path);
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos)
    return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data() + begin, text.data() + text.size(), value);
  (void)end;
  if (error != std::errc{})
    return std::nullopt;
  return value;
}

std::uint64_t read_u64(const char* path)
{
  return optional_u64(path).value_or(0);
}

std::string cpu_model()
{
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) {
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    std::size_t begin = line.find_first_not_of(" \t", colon + 1);
    if (begin != std::string::npos) {
      return line.substr(begin);
    }
  }
  return "unknown";
}

std::string hostname()
{
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0) {
    return {};
  }
  return buffer;
}

std::string kernel()
{
  struct utsname names {};
  if (::uname(&names) != 0) {
    return {};
  }
  return std::string(names.sysname) + " " + names.release;
}

// One word for every CPU's scaling governor; empty where cpufreq is absent.
std::string cpu_governor()
{
  std::string governor;
  for (unsigned cpu = 0;; ++cpu) {
    const std::string path =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor";
    const std::string this_one = first_line(path.c_str());
    if (this_one.empty())
      return governor;
    if (!governor.empty() && governor != this_one)
      return "mixed";
    governor = this_one;
  }
}

} // namespace

HostFacts collect_host_facts()
{
  HostFacts facts;
  // Only allocation can throw here; a report without host facts beats no report.
  try {
    facts.hostname = hostname();
    facts.kernel = kernel();
    facts.cpu_model = cpu_model();
    facts.cores = std::thread::hardware_concurrency();
    facts.clock_source =
        first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    facts.cpu_governor = cpu_governor();
    facts.cpu_idle_driver = first_line("/sys/devices/system/cpu/cpuidle/current_driver");
    if (facts.cpu_idle_driver == "haltpoll")
      facts.guest_halt_poll_ns = optional_u64("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
    facts.rmem_default = read_u64("/proc/sys/net/core/rmem_default");
    facts.rmem_max = read_u64("/proc/sys/net/core/rmem_max");
    facts.wmem_default = read_u64("/proc/sys/net/core/wmem_default");
    facts.wmem_max = read_u64("/proc/sys/net/core/wmem_max");
  } catch (...) {
  }
  return facts;
}

} // namespace netprof
