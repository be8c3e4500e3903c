#include "tcp_sockets.hpp"

#include "common/ipv4_address.hpp"

#include <netprof/errors.hpp>

#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace netprof::tcp {

namespace {

using transport_common::UniqueFd;

UniqueFd new_socket()
{
  return UniqueFd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
}

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

// A restarted process binds its address again while the last run's connections linger in
// TIME_WAIT; a second listener on a live address is still refused.
bool reuse_address(int fd) noexcept
{
  const int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0;
}

std::string name_of(int fd, int (*get)(int, sockaddr*, socklen_t*))
{
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (get(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return "?";
  }
  return transport_common::to_string(address);
}

} // namespace

TcpSockets::TcpSockets(const TcpSettings& settings) : m_settings(settings)
{
  const UniqueFd probe = new_socket();
  if (!probe.valid()) {
    throw TransportError("cannot open a TCP socket: " + error_text(errno));
  }
  m_buffers = transport_common::size_socket_buffers(probe.get(), probe.get(),
                                                    settings.queue_length_bytes, "TCP");
}

UniqueFd TcpSockets::listen()
{
  const std::string address = transport_common::to_string(m_settings.publisher);
  UniqueFd fd = new_socket();
  if (!fd.valid() || !reuse_address(fd.get())) {
    throw TransportError("cannot open a TCP socket: " + error_text(errno));
  }
  // Before listen(): an accepted connection takes its buffers from the listener, and TCP
  // sizes its window from them during the handshake.
  m_buffers = transport_common::size_socket_buffers(fd.get(), fd.get(),
                                                    m_settings.queue_length_bytes, "TCP");
  prepare(fd.get());
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&m_settings.publisher),
           sizeof m_settings.publisher) != 0) {
    const int error = errno;
    throw TransportError("cannot bind TCP " + address + ": " + error_text(error) +
                         (error == EADDRNOTAVAIL ? " (no interface has this address)" : ""));
  }
  if (::listen(fd.get(), SOMAXCONN) != 0) {
    throw TransportError("cannot listen on TCP " + address + ": " + error_text(errno));
  }
  return fd;
}

UniqueFd TcpSockets::dial(int& error) noexcept
{
  UniqueFd fd = new_socket();
  if (!fd.valid()) {
    error = errno;
    return fd;
  }
  try {
    m_buffers = transport_common::size_socket_buffers(fd.get(), fd.get(),
                                                      m_settings.queue_length_bytes, "TCP");
  } catch (const std::exception&) {
    // The probe in the constructor sized the same buffers; a refusal now is transient.
  }
  prepare(fd.get());
  if (m_settings.own && (!reuse_address(fd.get()) ||
                         bind(fd.get(), reinterpret_cast<const sockaddr*>(&*m_settings.own),
                              sizeof *m_settings.own) != 0)) {
    error = errno;
    return {};
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&m_settings.publisher),
              sizeof m_settings.publisher) == 0) {
    error = 0;
    return fd;
  }
  error = errno;
  return error == EINPROGRESS ? std::move(fd) : UniqueFd();
}

void TcpSockets::prepare(int fd) noexcept
{
  // Set on each connection, though Linux copies it from the listener: the choice must hold
  // whatever the kernel copies.
  const int no_delay = m_settings.no_delay ? 1 : 0;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof no_delay);
}

std::string TcpSockets::describe_peer(int fd) const
{
  return name_of(fd, getpeername);
}

std::string TcpSockets::describe_own_end(int fd) const
{
  return name_of(fd, getsockname);
}

std::string TcpSockets::dial_hint(int error) const
{
  if (error == ECONNREFUSED) {
    return " (is a netprof publisher listening there, started with -i 0 --tcp " +
           transport_common::to_string(m_settings.publisher) + "?)";
  }
  if (error == EADDRINUSE && m_settings.own) {
    return " (this subscriber's own address, its first --tcp, is taken: give port 0)";
  }
  if (error == ETIMEDOUT || error == EHOSTUNREACH || error == ENETUNREACH) {
    return " (is the publisher's host reachable?)";
  }
  return {};
}

} // namespace netprof::tcp
