#pragma once

// --uds values: a socket file's path, or @NAME in Linux's abstract namespace. Socket-free, so
// it can be tested on its own; a bad value throws UsageError with one line naming it.

#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <string_view>

namespace netprof::uds {

struct UdsAddress {
  std::string text;      // as given: "/tmp/x.sock" or "@name"
  bool abstract = false; // @NAME: no file, no permissions
  std::string path;      // the file's path (empty when abstract)
  sockaddr_un address{}; // what bind and connect take
  socklen_t length = 0;  // of `address`: an abstract name's bytes count, no terminator
};

// Refuses what sun_path cannot hold (more than 107 bytes), an empty path or name, and NUL
// bytes: a real one (no C string carries it to the kernel whole), and the escapes "\0" and
// "\x00", which netprof does not translate, so they could only mean a NUL that never gets
// there.
UdsAddress parse_uds_address(std::string_view value);

} // namespace netprof::uds
