#pragma once

// What the two bare NNG baselines (bare_nng_pingpong, bare_nng_stream) share: NNG's errors as
// one exception, and opening and dialling a socket the same way.

#include "bare_loopback_endpoint.hpp"

#include <nng/nng.h>

#include <stdexcept>
#include <string>

namespace bare::nng {

// For every send and receive, and for the child's process to start and dial: generous even for
// a loaded VM, whose stalls reached 2 s, yet short enough that a lost message ends the run in
// seconds.
inline constexpr nng_duration timeout_ms = 10000;
inline constexpr std::size_t max_message_size = std::size_t{1} << 20;

struct Failure : std::runtime_error {
  // `error`: an NNG error, or 0 for a mismatch of our own.
  Failure(const char* what, int error)
      : std::runtime_error(error != 0 ? std::string(what) + ": " + nng_strerror(error) : what)
  {
  }
};

inline void check(int error, const char* what)
{
  if (error != 0)
    throw Failure{what, error};
}

// A socket of the protocol `open` makes, whose sends and receives give up after timeout_ms and
// whose receives refuse a message over `max_message` bytes.
inline nng_socket open_socket(int (*open)(nng_socket*), std::size_t max_message)
{
  nng_socket socket = NNG_SOCKET_INITIALIZER;
  check(open(&socket), "open");
  check(nng_socket_set_ms(socket, NNG_OPT_RECVTIMEO, timeout_ms), "NNG_OPT_RECVTIMEO");
  check(nng_socket_set_ms(socket, NNG_OPT_SENDTIMEO, timeout_ms), "NNG_OPT_SENDTIMEO");
  check(nng_socket_set_size(socket, NNG_OPT_RECVMAXSZ, max_message), "NNG_OPT_RECVMAXSZ");
  return socket;
}

// The child's side: NNG keeps dialling (every 10 ms) until the parent listens.
inline void dial(nng_socket socket, const std::string& url)
{
  check(nng_socket_set_ms(socket, NNG_OPT_RECONNMINT, 10), "NNG_OPT_RECONNMINT");
  check(nng_dial(socket, url.c_str(), nullptr, NNG_FLAG_NONBLOCK), "nng_dial");
}

} // namespace bare::nng
