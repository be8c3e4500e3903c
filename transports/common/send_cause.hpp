#pragma once

#include <netprof/transport.hpp>

#include <cerrno>

namespace netprof {

// The cause a socket transport reports (SendOutcome::cause) for the errno of a send
// that did not go out; 0 means no system call failed (the transport held back by itself).
constexpr SendCause send_cause_of_errno(int error) noexcept
{
  switch (error) {
  case 0:
    return SendCause::unspecified;
  case EAGAIN:
#if EWOULDBLOCK != EAGAIN
  case EWOULDBLOCK:
#endif
    return SendCause::would_block;
  case ENOBUFS:
    return SendCause::no_buffer_space;
  case EINTR:
    return SendCause::interrupted;
  case EINPROGRESS:
  case EALREADY:
    return SendCause::connecting;
  default:
    return SendCause::error;
  }
}

} // namespace netprof
