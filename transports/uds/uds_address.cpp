#include "uds_address.hpp"

#include "common/host_name.hpp"
#include "common/socket_file.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>

namespace netprof::uds {

namespace {

[[noreturn]] void throw_bad_value(std::string_view value, std::string_view reason)
{
  transport_common::throw_bad_address("--uds", value, reason);
}

bool escapes_a_nul(std::string_view text) noexcept
{
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("\\0") != std::string::npos || lower.find("\\x00") != std::string::npos;
}

// How the message shows a value with a NUL in it: the NUL as \0, the rest as given.
std::string printable(std::string_view value)
{
  std::string shown;
  for (const char c : value) {
    shown += c == '\0' ? std::string("\\0") : std::string(1, c);
  }
  return shown;
}

} // namespace

UdsAddress parse_uds_address(std::string_view value)
{
  if (value.empty()) {
    throw_bad_value(value, "expected a socket file's path or @name");
  }
  if (value.find('\0') != std::string_view::npos) {
    throw_bad_value(printable(value), "a socket name cannot contain a NUL byte");
  }
  UdsAddress parsed;
  parsed.text = std::string(value);
  parsed.abstract = value.front() == '@';
  const std::string_view name = parsed.abstract ? value.substr(1) : value;
  if (escapes_a_nul(name)) {
    throw_bad_value(value, "netprof does not translate escapes, and a NUL byte cannot be part "
                           "of a socket name given on the command line (drop the \\0)");
  }
  if (name.empty()) {
    throw_bad_value(value, "an abstract name needs characters after the @");
  }
  if (name.size() > transport_common::max_socket_path) {
    throw_bad_value(value, std::string(parsed.abstract ? "the name" : "the path") + " is " +
                               std::to_string(name.size()) + " bytes, at most " +
                               std::to_string(transport_common::max_socket_path) +
                               " fit in a Unix socket address (sun_path)");
  }
  parsed.address.sun_family = AF_UNIX;
  // An abstract name starts with a zero byte, and its length says where it ends.
  char* where = parsed.address.sun_path + (parsed.abstract ? 1 : 0);
  std::memcpy(where, name.data(), name.size());
  parsed.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() +
                                         (parsed.abstract ? 1 : 0));
  if (!parsed.abstract) {
    parsed.path = std::string(name);
  }
  return parsed;
}

} // namespace netprof::uds
