#pragma once

// What the bare Unix-socket baselines share (bare_uds_pingpong.cpp, bare_uds_stream.cpp; no
// netprof code): their --type and the connected pair it names. socketpair gives the same kernel
// path as a listener's accepted connection, without a file.

#include "bare_stream_pingpong.hpp"

#include <sys/socket.h>

#include <string>
#include <string_view>

namespace bare::uds {

// --type seqpacket|stream into `kind`; false for any other flag.
inline bool take_type(std::string_view flag, std::string_view value, std::string& kind)
{
  if (flag != "--type")
    return false;
  if (value != "seqpacket" && value != "stream")
    throw UsageError{"--type must be seqpacket or stream"};
  kind = std::string(value);
  return true;
}

// A connected pair of the kind --type names; a seqpacket pair delivers each message whole.
inline SocketPair connected_pair(const std::string& kind)
{
  const bool record = kind == "seqpacket";
  int ends[2];
  if (socketpair(AF_UNIX, (record ? SOCK_SEQPACKET : SOCK_STREAM) | SOCK_CLOEXEC, 0, ends) != 0)
    throw Failure{"socketpair", errno};
  return {ends[0], ends[1], record};
}

} // namespace bare::uds
