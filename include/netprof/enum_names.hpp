#pragma once

#include <cstddef>

namespace netprof {

// The name of an enumerator, from a table that lists every enumerator's name in declaration
// order (enumerators numbered 0, 1, 2...). A value outside the table (a corrupt or future one)
// gets `unknown` rather than reading past the end.
template <typename Enum, std::size_t N>
constexpr const char* enum_name(Enum value, const char* const (&names)[N],
                                const char* unknown) noexcept
{
  const auto index = static_cast<std::size_t>(value);
  return index < N ? names[index] : unknown;
}

} // namespace netprof
