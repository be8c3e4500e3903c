#include "host_name.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <string>

namespace netprof::transport_common {

namespace {

bool is_digit(char c) noexcept
{
  return c >= '0' && c <= '9';
}

} // namespace

bool looks_like_dotted_quad(std::string_view host) noexcept
{
  return std::all_of(host.begin(), host.end(), [](char c) { return is_digit(c) || c == '.'; });
}

bool is_host_name(std::string_view host) noexcept
{
  if (host.empty() || host.size() > 253) {
    return false;
  }
  if (host.back() == '.') {
    host.remove_suffix(1);
  }
  std::size_t label_start = 0;
  while (label_start <= host.size()) {
    const std::size_t dot = std::min(host.find('.', label_start), host.size());
    const std::string_view label = host.substr(label_start, dot - label_start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (const char c : label) {
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!letter && !is_digit(c) && c != '-' && c != '_') {
        return false;
      }
    }
    label_start = dot + 1;
  }
  return true;
}

void throw_bad_address(std::string_view flag, std::string_view value, std::string_view reason)
{
  std::string message = "bad ";
  message += flag;
  message += " value '";
  message += value;
  message += "': ";
  message += reason;
  throw UsageError(message);
}

} // namespace netprof::transport_common
