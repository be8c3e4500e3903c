#pragma once

// What the ring's tests share: a ring over an ordinary array, zeroed and 64-byte aligned as the
// transport's shared mapping would be; messages that show a damaged copy; readers that collect
// what they are handed.

#include "ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace netprof::shm {

class TestRing {
public:
  TestRing(std::size_t capacity, std::size_t readers, History history, std::uint64_t salt = 0x1234)
      : m_words(RingView::bytes_needed(capacity, readers) / 8 + 8)
  {
    auto* base = reinterpret_cast<std::byte*>(m_words.data());
    const auto misalignment = reinterpret_cast<std::uintptr_t>(base) % 64;
    base += misalignment == 0 ? 0 : 64 - misalignment;
    view = RingView::format({base, RingView::bytes_needed(capacity, readers)}, capacity, readers,
                            history, salt);
  }

  std::optional<RingView> view; // none when format refused

private:
  std::vector<std::uint64_t> m_words;
};

using Bytes = std::vector<std::byte>;

// A message whose first 8 bytes are its index and whose other bytes depend on both, so a
// shifted, truncated or mixed-up copy shows.
inline Bytes message(std::uint64_t index, std::size_t size)
{
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<std::byte>((index * 131 + i * 7) & 0xff);
  std::memcpy(bytes.data(), &index, std::min<std::size_t>(8, size));
  return bytes;
}

inline std::uint64_t index_of(const Bytes& bytes)
{
  std::uint64_t index = 0;
  std::memcpy(&index, bytes.data(), std::min<std::size_t>(8, bytes.size()));
  return index;
}

// Writes the messages numbered [from, to), of `size` bytes each; fails naming the first one the
// writer did not take at once.
inline ::testing::AssertionResult writes(RingWriter& writer, std::uint64_t from, std::uint64_t to,
                                         std::size_t size)
{
  for (std::uint64_t i = from; i < to; ++i)
    if (const WriteResult result = writer.write(message(i, size)); result != WriteResult::written)
      return ::testing::AssertionFailure()
             << "message " << i << " was not written (" << static_cast<int>(result) << ")";
  return ::testing::AssertionSuccess();
}

// When a Collector attaches its reader: at once, or when the test says (to test attaching).
enum class Attach { now, later };

// A reader with its own copy buffer, collecting what it is handed. A reader that cannot attach
// at once fails the test (gtest reports the exception).
class Collector {
public:
  Collector(const RingView& view, std::size_t index, Attach attach = Attach::now)
      : m_copy((view.max_message_size() + 7) / 8), sut(view, index, m_copy)
  {
    if (attach == Attach::now && !sut.attach())
      throw std::runtime_error("reader " + std::to_string(index) + " could not attach");
  }

  std::size_t read(std::size_t max = 1000)
  {
    return sut.read([this](std::span<const std::byte> m) { got.emplace_back(m.begin(), m.end()); },
                    max);
  }

private:
  std::vector<std::uint64_t> m_copy;

public:
  RingReader sut;
  std::vector<Bytes> got;
};

// A ring with one attached reader, then the writer: where most tests start.
struct OneReader {
  OneReader(std::size_t capacity, History history) : ring(capacity, 1, history) {}

  TestRing ring;
  Collector reader{*ring.view, 0};
  RingWriter sut{*ring.view};
};

} // namespace netprof::shm
