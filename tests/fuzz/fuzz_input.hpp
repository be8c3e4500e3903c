#pragma once

// Reading and writing the fuzz targets' inputs, and the check that turns a broken promise into
// a crash libFuzzer records.
//
// Inputs are read front to back as little-endian fields. Past the end every field reads as
// zero, so every input is a valid one and no run is wasted on framing the target rejects.
// FuzzOutput writes the same fields, for the seed corpus (write_seed_corpus.cpp).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

// Not assert(): it must hold in every build type, and say which promise broke.
#define NETPROF_FUZZ_CHECK(condition)                                                              \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      std::fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #condition);         \
      std::abort();                                                                                \
    }                                                                                              \
  } while (false)

namespace netprof::fuzz {

class FuzzInput {
public:
  explicit FuzzInput(std::span<const std::byte> data) noexcept : m_data(data) {}

  bool exhausted() const noexcept { return m_position >= m_data.size(); }

  std::uint8_t u8() noexcept { return static_cast<std::uint8_t>(little_endian(1)); }
  std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(little_endian(2)); }
  std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(little_endian(4)); }

  // The next `count` bytes, or fewer when the input ends first.
  std::span<const std::byte> bytes(std::size_t count) noexcept
  {
    const std::size_t start = m_position < m_data.size() ? m_position : m_data.size();
    const std::size_t available = m_data.size() - start;
    const std::size_t taken = count < available ? count : available;
    m_position = start + taken;
    return m_data.subspan(start, taken);
  }

private:
  std::uint64_t little_endian(std::size_t width) noexcept
  {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i, ++m_position) {
      if (m_position < m_data.size()) {
        value |= std::uint64_t{static_cast<std::uint8_t>(m_data[m_position])} << (8 * i);
      }
    }
    return value;
  }

  std::span<const std::byte> m_data;
  std::size_t m_position = 0;
};

class FuzzOutput {
public:
  void u8(std::uint8_t value) { put(value, 1); }
  void u16(std::uint16_t value) { put(value, 2); }
  void u32(std::uint32_t value) { put(value, 4); }
  void bytes(std::span<const std::byte> data)
  {
    m_bytes.insert(m_bytes.end(), data.begin(), data.end());
  }

  const std::vector<std::byte>& data() const noexcept { return m_bytes; }

private:
  void put(std::uint64_t value, std::size_t width)
  {
    for (std::size_t i = 0; i < width; ++i) {
      m_bytes.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xffU));
    }
  }

  std::vector<std::byte> m_bytes;
};

} // namespace netprof::fuzz
