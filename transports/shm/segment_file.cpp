#include "segment_file.hpp"

#include "common/user_names.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <pwd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <system_error>
#include <vector>

namespace netprof::shm {

namespace {

// What --shm-allow-user would take for this owner: its name when it has one.
std::string allow_user_value(uid_t uid)
{
  return transport_common::user_name(uid).value_or(std::to_string(uid));
}

std::string mode_text(mode_t mode)
{
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

SegmentFile refused(std::string why)
{
  SegmentFile file;
  file.status = SegmentFile::Status::refused;
  file.refusal = std::move(why);
  return file;
}

} // namespace

uid_t parse_trusted_user(const std::string& text)
{
  const bool numeric = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (numeric) {
    // (uid_t)-1 means "no user" to chown and friends, so it is no one's uid.
    constexpr auto largest = std::numeric_limits<uid_t>::max() - 1;
    if (text.size() <= 10 && std::stoull(text) <= largest)
      return static_cast<uid_t>(std::stoull(text));
    throw UsageError("bad --shm-allow-user value '" + text + "': a uid is at most " +
                     std::to_string(largest));
  }
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (!text.empty() &&
      getpwnam_r(text.c_str(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr)
    return found->pw_uid;
  throw UsageError("bad --shm-allow-user value '" + text +
                   "': no user has that name (give a user name or a numeric uid)");
}

std::string user_label(uid_t uid)
{
  return transport_common::user_label(uid);
}

std::string file_kind(mode_t mode)
{
  switch (mode & S_IFMT) {
  case S_IFREG:
    return "a regular file";
  case S_IFIFO:
    return "a FIFO";
  case S_IFLNK:
    return "a symbolic link";
  case S_IFDIR:
    return "a directory";
  case S_IFSOCK:
    return "a socket";
  case S_IFCHR:
    return "a character device";
  case S_IFBLK:
    return "a block device";
  default:
    return "a file of unknown type";
  }
}

std::optional<std::string> refusal_for(const struct stat& info, const std::string& path,
                                       const OwnerPolicy& policy)
{
  if (!S_ISREG(info.st_mode))
    return path + " is " + file_kind(info.st_mode) + " owned by " + user_label(info.st_uid) +
           ", not a shared-memory segment: netprof will not use it (remove it, or choose "
           "another --shm NAME)";
  if (!policy.trusts(info.st_uid))
    return path + " belongs to another user, " + user_label(info.st_uid) +
           ": netprof does not use another user's segment (remove it, choose another --shm "
           "NAME, or trust that user with --shm-allow-user " +
           allow_user_value(info.st_uid) + ")";
  return std::nullopt;
}

std::string permission_refusal(const std::string& path, const struct stat* info)
{
  std::string line = "permission denied opening " + path;
  if (info != nullptr)
    line += ": it belongs to " + user_label(info->st_uid) + ", mode " + mode_text(info->st_mode);
  return line;
}

SegmentFile open_segment_file(const std::string& path, int access, const OwnerPolicy& policy)
{
  const int fd = open(path.c_str(), access | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    struct stat info {};
    const bool looked = lstat(path.c_str(), &info) == 0;
    if (error == ENOENT || (!looked && errno == ENOENT))
      return {};
    if (error == EACCES || error == EPERM)
      return refused(permission_refusal(path, looked ? &info : nullptr));
    // ELOOP (a link), ENXIO (a socket), EISDIR (a directory opened for writing).
    if (looked)
      if (std::optional<std::string> why = refusal_for(info, path, policy))
        return refused(std::move(*why));
    return refused("cannot open " + path + ": " + std::generic_category().message(error));
  }
  SegmentFile file;
  if (fstat(fd, &file.info) != 0) {
    const int error = errno;
    close(fd);
    return refused("cannot look at " + path + ": " + std::generic_category().message(error));
  }
  if (std::optional<std::string> why = refusal_for(file.info, path, policy)) {
    close(fd);
    return refused(std::move(*why));
  }
  file.status = SegmentFile::Status::opened;
  file.fd = fd;
  return file;
}

} // namespace netprof::shm
