#pragma once

#include <cstdint>
#include <vector>

namespace netprof {

// The publisher's memory of the probes it sent recently, so an echo is trusted only when it
// names a probe that was really sent with exactly those stamps (a forged or stale echo must
// not become a latency sample). Fixed size; the oldest entries are overwritten.
class ProbeRing {
public:
  static constexpr std::size_t capacity = 1u << 14;

  ProbeRing() : m_entries(capacity) {}

  void remember(std::uint64_t sequence, bool warmup, std::int64_t intended_ns,
                std::int64_t sent_ns) noexcept
  {
    m_entries[slot(sequence, warmup)] = Entry{sequence, intended_ns, sent_ns, warmup, true};
  }

  bool matches(std::uint64_t sequence, bool warmup, std::int64_t intended_ns,
               std::int64_t sent_ns) const noexcept
  {
    const Entry& entry = m_entries[slot(sequence, warmup)];
    return entry.used && entry.sequence == sequence && entry.warmup == warmup &&
           entry.intended_ns == intended_ns && entry.sent_ns == sent_ns;
  }

private:
  struct Entry {
    std::uint64_t sequence = 0;
    std::int64_t intended_ns = 0;
    std::int64_t sent_ns = 0;
    bool warmup = false;
    bool used = false;
  };

  static std::size_t slot(std::uint64_t sequence, bool warmup) noexcept
  {
    // Warm-up and measured probes number from zero separately; keep them in different slots.
    return static_cast<std::size_t>((sequence * 2 + (warmup ? 1 : 0)) % capacity);
  }

  std::vector<Entry> m_entries;
};

} // namespace netprof
