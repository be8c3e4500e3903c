#include "socket_file.hpp"

#include <netprof/errors.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <random>
#include <system_error>

namespace netprof::transport_common {

namespace {

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

// Whether anyone listens at the socket file: connect's error, or 0 when it connected.
int probe_listener(const std::string& path, const SocketFileRules& rules)
{
  sockaddr_un peer{};
  peer.sun_family = AF_UNIX;
  std::memcpy(peer.sun_path, path.data(), std::min(path.size(), max_socket_path));
  const int fd = socket(AF_UNIX, rules.socket_type | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw TransportError("cannot check " + std::string(rules.what) + ": " + error_text(errno));
  }
  const int connected = connect(fd, reinterpret_cast<const sockaddr*>(&peer), sizeof peer);
  const int error = connected == 0 ? 0 : errno;
  close(fd);
  return error;
}

} // namespace

SocketFileCheck prepare_socket_file(const std::string& path, const SocketFileRules& rules)
{
  SocketFileCheck check;
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0) {
    return check; // nothing there, or a directory problem that bind reports precisely
  }
  const std::string what(rules.what);
  if (!S_ISSOCK(status.st_mode)) {
    throw TransportError("cannot bind " + what +
                         ": the path exists and is not a socket (netprof never replaces it)");
  }
  if (rules.refuse_other_owners && status.st_uid != geteuid()) {
    throw TransportError("cannot bind " + what + ": the socket file there belongs to uid " +
                         std::to_string(status.st_uid) +
                         ", not to this user (netprof never replaces another user's file)");
  }
  const int error = probe_listener(path, rules);
  // EAGAIN: a listener whose backlog is full; EPROTOTYPE: a live socket of another type.
  if (error == 0 || error == EAGAIN || error == EPROTOTYPE) {
    throw TransportError("cannot bind " + what +
                         ": address in use (another process is listening on it)");
  }
  if (error != ECONNREFUSED) {
    throw TransportError("cannot bind " + what + ": the socket file there is not usable (" +
                         error_text(error) + "), and it is not netprof's to remove");
  }
  // Refused: nobody listens, so it is left over from a run that did not close cleanly.
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw TransportError("cannot remove the stale socket file of " + what + ": " +
                         error_text(errno));
  }
  check.removed_stale = true;
  return check;
}

std::string temporary_socket_path(std::string_view stem, std::string_view role,
                                  std::string_view extension)
{
  std::random_device device;
  char suffix[16];
  const auto written = std::to_chars(suffix, suffix + sizeof suffix, device(), 16);
  const std::string pid = std::to_string(getpid());
  std::string name = "/";
  for (const std::string_view part :
       {stem, std::string_view("-"), std::string_view(pid), std::string_view("-"),
        std::string_view(suffix, written.ptr), std::string_view("-"), role, extension}) {
    name += part;
  }
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && tmpdir[0] == '/' &&
      std::strlen(tmpdir) + name.size() <= max_socket_path) {
    return tmpdir + name;
  }
  return "/tmp" + name;
}

FileIdentity identify_file(const std::string& path) noexcept
{
  FileIdentity identity;
  struct stat status {};
  if (lstat(path.c_str(), &status) == 0) {
    identity.device = status.st_dev;
    identity.inode = status.st_ino;
    identity.known = true;
  }
  return identity;
}

void remove_if_same_file(const std::string& path, const FileIdentity& identity) noexcept
{
  if (!identity.known) {
    return;
  }
  const FileIdentity now = identify_file(path);
  if (now.known && now.device == identity.device && now.inode == identity.inode) {
    unlink(path.c_str());
  }
}

} // namespace netprof::transport_common
