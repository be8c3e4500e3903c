#pragma once

#include <cstdint>
#include <limits>

namespace netprof {

// --drop-rate: decides, message by message, which received data a subscriber drops as if it
// never came, from a hash (splitmix64's mix) of the seed and the message's sequence number: two
// runs with the same seed drop the same messages whatever else differs (how many warm-up
// messages came, the order of arrival), so a run's loss has a known truth. A few multiplies and
// a compare per message, and nothing at all when the rate is 0.
class DropInjection {
public:
  DropInjection(double percent, std::uint64_t seed) noexcept
      : m_seed(seed), m_enabled(percent > 0.0), m_everything(percent >= 100.0),
        m_threshold(threshold(percent))
  {
  }

  bool drops(std::uint64_t sequence) const noexcept
  {
    if (!m_enabled)
      return false;
    return m_everything || mix(m_seed + (sequence + 1) * 0x9E3779B97F4A7C15ULL) < m_threshold;
  }

private:
  static std::uint64_t threshold(double percent) noexcept
  {
    if (!(percent > 0.0) || percent >= 100.0)
      return 0;
    // 2^64 * percent / 100, computed in doubles: exact enough for any rate a user types.
    return static_cast<std::uint64_t>(percent / 100.0 * 18446744073709551616.0);
  }

  static std::uint64_t mix(std::uint64_t z) noexcept
  {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t m_seed;
  bool m_enabled;
  bool m_everything;
  std::uint64_t m_threshold;
};

} // namespace netprof
