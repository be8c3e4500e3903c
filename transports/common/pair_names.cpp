#include "pair_names.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>

namespace netprof::transport_common {

bool is_plain_name(const std::string& name) noexcept
{
  const bool allowed = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  return allowed && !name.empty() && name.size() <= 200 && name.front() != '.';
}

std::string unique_pair_name()
{
  std::random_device device;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", device(), device());
  return pair_prefix + std::to_string(getpid()) + "-" + suffix;
}

} // namespace netprof::transport_common
