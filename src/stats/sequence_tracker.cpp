#include <netprof/sequence_tracker.hpp>

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace netprof {

namespace {

constexpr std::uint64_t largest_window = std::uint64_t{1} << 40;
constexpr unsigned word_bits = 64;

std::uint64_t checked_window(std::uint64_t window)
{
  if (window > largest_window)
    throw std::invalid_argument("sequence window must be at most 2^40");
  return std::bit_ceil(std::max<std::uint64_t>(window, 1));
}

} // namespace

SequenceTracker::SequenceTracker(std::uint64_t window)
    : m_seen_bits((checked_window(window) + word_bits - 1) / word_bits, 0),
      m_window(checked_window(window))
{
}

bool SequenceTracker::seen(std::uint64_t sequence) const noexcept
{
  const std::uint64_t position = sequence & (m_window - 1);
  return (m_seen_bits[position / word_bits] >> (position % word_bits)) & 1u;
}

void SequenceTracker::mark(std::uint64_t sequence) noexcept
{
  const std::uint64_t position = sequence & (m_window - 1);
  m_seen_bits[position / word_bits] |= std::uint64_t{1} << (position % word_bits);
}

void SequenceTracker::forget(std::uint64_t first, std::uint64_t count) noexcept
{
  // Word-wise over at most two position ranges (the ring wraps), so even a jump of a whole
  // window costs window/64 stores, and a bigger jump is never looped over.
  const auto clear_positions = [this](std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t first_word = begin / word_bits;
    const std::uint64_t last_word = (end - 1) / word_bits;
    const std::uint64_t head = ~std::uint64_t{0} << (begin % word_bits);
    const std::uint64_t tail = ~std::uint64_t{0} >> (word_bits - 1 - (end - 1) % word_bits);
    if (first_word == last_word) {
      m_seen_bits[first_word] &= ~(head & tail);
      return;
    }
    m_seen_bits[first_word] &= ~head;
    std::fill(m_seen_bits.begin() + static_cast<std::ptrdiff_t>(first_word + 1),
              m_seen_bits.begin() + static_cast<std::ptrdiff_t>(last_word), 0);
    m_seen_bits[last_word] &= ~tail;
  };
  if (count == 0)
    return;
  if (count >= m_window) {
    std::fill(m_seen_bits.begin(), m_seen_bits.end(), 0);
    return;
  }
  const std::uint64_t begin = first & (m_window - 1);
  const std::uint64_t end = begin + count;
  if (end <= m_window) {
    clear_positions(begin, end);
  } else {
    clear_positions(begin, m_window);
    clear_positions(0, end - m_window);
  }
}

void SequenceTracker::observe(std::uint64_t sequence) noexcept
{
  ++m_received;
  if (!m_any) {
    m_any = true;
    m_highest = sequence;
    mark(sequence);
    ++m_unique;
    return;
  }
  if (sequence > m_highest) {
    const std::uint64_t jump = sequence - m_highest;
    if (jump > 1) {
      ++m_gaps;
      // The skipped numbers' bits still describe numbers one window older; clear them so a
      // skipped number arriving late is not mistaken for a duplicate.
      forget(m_highest + 1, jump - 1);
    }
    // mark() overwrites the one bit that described `sequence - window`.
    mark(sequence);
    m_highest = sequence;
    ++m_unique;
    return;
  }
  if (m_highest - sequence >= m_window) {
    ++m_out_of_order;
    ++m_unique;
    return;
  }
  if (seen(sequence)) {
    ++m_duplicates;
    return;
  }
  mark(sequence);
  ++m_out_of_order;
  ++m_unique;
}

std::uint64_t SequenceTracker::received() const noexcept
{
  return m_received;
}

std::uint64_t SequenceTracker::unique() const noexcept
{
  return m_unique;
}

std::uint64_t SequenceTracker::duplicates() const noexcept
{
  return m_duplicates;
}

std::uint64_t SequenceTracker::out_of_order() const noexcept
{
  return m_out_of_order;
}

std::uint64_t SequenceTracker::gaps() const noexcept
{
  return m_gaps;
}

std::uint64_t SequenceTracker::lost(std::uint64_t sent) const noexcept
{
  return sent > m_unique ? sent - m_unique : 0;
}

} // namespace netprof
