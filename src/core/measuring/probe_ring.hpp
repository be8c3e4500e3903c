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

  struct Entry {
    std::uint64_t sequence = 0;
    std::int64_t intended_ns = 0;
    std::int64_t sent_ns = 0;
    bool warmup = false;
    bool used = false;
    // Fan-out: how many subscribers were known when it was sent, and when their echoes came.
    std::uint32_t expected_echoes = 0;
    std::uint32_t echoes = 0;
    std::int64_t first_echo_ns = 0;
    std::int64_t last_echo_ns = 0;
  };

  ProbeRing() : m_entries(capacity) {}

  void remember(std::uint64_t sequence, bool warmup, std::int64_t intended_ns, std::int64_t sent_ns,
                std::uint32_t expected_echoes) noexcept
  {
    m_entries[slot(sequence, warmup)] =
        Entry{sequence, intended_ns, sent_ns, warmup, true, expected_echoes, 0, 0, 0};
  }

  // The entry for this probe if it was really sent with exactly these stamps, else null.
  Entry* find(std::uint64_t sequence, bool warmup, std::int64_t intended_ns,
              std::int64_t sent_ns) noexcept
  {
    Entry& entry = m_entries[slot(sequence, warmup)];
    const bool same = entry.used && entry.sequence == sequence && entry.warmup == warmup &&
                      entry.intended_ns == intended_ns && entry.sent_ns == sent_ns;
    return same ? &entry : nullptr;
  }

private:
  static std::size_t slot(std::uint64_t sequence, bool warmup) noexcept
  {
    // Warm-up and measured probes number from zero separately; keep them in different slots.
    return static_cast<std::size_t>((sequence * 2 + (warmup ? 1 : 0)) % capacity);
  }

  std::vector<Entry> m_entries;
};

} // namespace netprof
