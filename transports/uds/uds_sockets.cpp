#include "uds_sockets.hpp"

#include <netprof/errors.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace netprof::uds {

namespace {

using transport_common::UniqueFd;

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

UniqueFd new_socket(int type)
{
  return UniqueFd(socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
}

std::string bind_hint(int error)
{
  if (error == ENOENT || error == EACCES || error == EROFS || error == ENOTDIR) {
    return " (is the directory there and writable?)";
  }
  if (error == EADDRINUSE) {
    return " (another process is listening on it)";
  }
  return "";
}

} // namespace

UdsSockets::UdsSockets(const UdsSettings& settings)
    : m_settings(settings), m_what("uds " + settings.address.text)
{
  const UniqueFd probe = new_socket(settings.socket_type);
  if (!probe.valid()) {
    throw TransportError("cannot open a Unix socket: " + error_text(errno));
  }
  m_buffers = transport_common::size_socket_buffers(probe.get(), probe.get(),
                                                    settings.queue_length_bytes, "Unix socket");
}

UdsSockets::~UdsSockets()
{
  if (!m_settings.address.path.empty()) {
    transport_common::remove_if_same_file(m_settings.address.path, m_own_file);
  }
}

UniqueFd UdsSockets::listen()
{
  const UdsAddress& address = m_settings.address;
  if (!address.abstract) {
    const transport_common::SocketFileCheck check =
        transport_common::prepare_socket_file(address.path, {m_what, m_settings.socket_type, true});
    if (check.removed_stale) {
      m_notes.push_back("removed a stale socket file at " + address.path +
                        " (left by an earlier run: nobody was listening on it)");
    }
  }
  UniqueFd fd = new_socket(m_settings.socket_type);
  // The file takes the socket's own mode, less the umask: 0600 keeps every other user out
  // from the moment it exists, which a chmod after bind would not.
  if (!fd.valid() || fchmod(fd.get(), S_IRUSR | S_IWUSR) != 0) {
    throw TransportError("cannot open a Unix socket: " + error_text(errno));
  }
  m_buffers = transport_common::size_socket_buffers(fd.get(), fd.get(),
                                                    m_settings.queue_length_bytes, "Unix socket");
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&address.address), address.length) != 0) {
    const int error = errno;
    throw TransportError("cannot bind " + m_what + ": " + error_text(error) + bind_hint(error));
  }
  if (!address.abstract) {
    m_own_file = transport_common::identify_file(address.path);
  } else {
    m_notes.push_back("@ names have no file and so no permissions: any process on this host "
                      "may connect (a path keeps other users out)");
  }
  if (::listen(fd.get(), SOMAXCONN) != 0) {
    throw TransportError("cannot listen on " + m_what + ": " + error_text(errno));
  }
  return fd;
}

UniqueFd UdsSockets::dial(int& error) noexcept
{
  UniqueFd fd = new_socket(m_settings.socket_type);
  if (!fd.valid()) {
    error = errno;
    return fd;
  }
  size_buffers(fd.get(), m_settings.queue_length_bytes);
  const UdsAddress& address = m_settings.address;
  // A Unix socket connects at once or not at all (EAGAIN: the listener's backlog is full).
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.address), address.length) == 0) {
    error = 0;
    return fd;
  }
  error = errno;
  return {};
}

void UdsSockets::prepare(int fd) noexcept
{
  size_buffers(fd, m_settings.queue_length_bytes);
}

bool size_buffers(int fd, std::size_t queue_length_bytes) noexcept
{
  try {
    transport_common::size_socket_buffers(fd, fd, queue_length_bytes, "Unix socket");
    return true;
  } catch (const std::exception&) {
    return false; // the probe in UdsSockets' constructor sized the same buffers: transient
  }
}

std::string UdsSockets::describe_peer(int fd) const
{
  ucred credentials{};
  socklen_t length = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    return "?";
  }
  return "pid " + std::to_string(credentials.pid) + " (uid " + std::to_string(credentials.uid) +
         ")";
}

std::string UdsSockets::describe_own_end(int /*fd*/) const
{
  return "pid " + std::to_string(getpid()) + ", connected to " + m_settings.address.text;
}

std::string UdsSockets::dial_hint(int error) const
{
  const std::string& text = m_settings.address.text;
  switch (error) {
  case ENOENT:
    return " (is a netprof publisher running, started with -i 0 --uds " + text + "?)";
  case ECONNREFUSED:
    return " (nobody listens there: the publisher has not started, or it ended)";
  case EPROTOTYPE:
    return " (the publisher uses the other --uds-type: give both the same)";
  case EACCES:
    return " (the socket file is its owner's alone: run as the publisher's user)";
  case EAGAIN:
    return " (the publisher's backlog of connections is full)";
  default:
    return "";
  }
}

} // namespace netprof::uds
