#include <netprof/report.hpp>

#include <array>
#include <charconv>
#include <fstream>
#include <string>

// Steal time explains tails on a VM: a vCPU the hypervisor gave away cannot answer a probe.

namespace netprof {

std::optional<CpuTimes> parse_cpu_times(std::string_view proc_stat)
{
  constexpr std::string_view prefix = "cpu ";
  if (proc_stat.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  std::array<std::uint64_t, 8> fields{};
  const char* p = proc_stat.data() + prefix.size();
  const char* end = proc_stat.data() + proc_stat.size();
  for (std::uint64_t& field : fields) {
    while (p < end && *p == ' ')
      ++p;
    const auto [next, error] = std::from_chars(p, end, field);
    if (error != std::errc{})
      return std::nullopt;
    p = next;
  }
  CpuTimes times;
  for (const std::uint64_t field : fields)
    times.total += field;
  times.steal = fields[7];
  return times;
}

std::optional<CpuTimes> read_cpu_times()
{
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  return parse_cpu_times(line);
}

std::optional<double> steal_percent(const std::optional<CpuTimes>& before,
                                    const std::optional<CpuTimes>& after) noexcept
{
  if (!before || !after || after->total <= before->total || after->steal < before->steal)
    return std::nullopt;
  return 100.0 * static_cast<double>(after->steal - before->steal) /
         static_cast<double>(after->total - before->total);
}

} // namespace netprof
