#pragma once

// What the bare TCP baselines share (bare_tcp_pingpong.cpp, bare_tcp_round_robin.cpp; no
// netprof code): a connected loopback pair, TCP_NODELAY on both ends, as netprof's tcp
// transport sets it.

#include "bare_stream_pingpong.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace bare::tcp {

inline int nodelay_socket()
{
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
    throw Failure{"socket", errno};
  return fd;
}

// Both ends connected before any fork: the connect completes from the listener's backlog.
inline SocketPair connected_pair()
{
  const int listener = nodelay_socket();
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      listen(listener, 1) != 0)
    throw Failure{"listen", errno};
  SocketPair pair;
  pair.first = nodelay_socket();
  if (connect(pair.first, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    throw Failure{"connect", errno};
  pair.second = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  const int on = 1;
  if (pair.second < 0 || setsockopt(pair.second, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
    throw Failure{"accept", errno};
  close(listener);
  return pair;
}

} // namespace bare::tcp
