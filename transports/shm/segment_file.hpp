#pragma once

// The file behind a segment, /dev/shm/netprof-NAME, before anything in it is believed. /dev/shm
// is writable by every user, so whatever is found under a name may be anyone's: a FIFO (whose
// open() would block until someone writes to it), a symbolic link, a directory, a socket, or a
// regular file of another user with a made-up header. Only a regular file owned by this user
// (or by one the user trusts with --shm-allow-user) is used; the rest is refused with one line
// naming the path and what it is.

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace netprof::shm {

// Whose segments this process uses: its own effective user's (root included: root is not
// special), and one more user's when asked for.
struct OwnerPolicy {
  uid_t self = geteuid();
  std::optional<uid_t> also_trusted; // --shm-allow-user

  bool trusts(uid_t owner) const noexcept { return owner == self || owner == also_trusted; }
};

// --shm-allow-user's value: a user name, or a numeric uid (which need not name anyone).
// Throws UsageError naming the value when it is neither.
uid_t parse_trusted_user(const std::string& text);

// "nobody (uid 65534)", or "uid 4242" when no user has that uid.
std::string user_label(uid_t uid);

// "a FIFO", "a directory", "a regular file"... for a stat's st_mode.
std::string file_kind(mode_t mode);

// Why the file described by `info`, found at `path`, is not to be used, or nullopt when it may
// be: one line, without the "netprof: " prefix.
std::optional<std::string> refusal_for(const struct stat& info, const std::string& path,
                                       const OwnerPolicy& policy);

// The line for an open() refused with EACCES or EPERM: whose file it is and its mode, from
// `info` when the file could still be looked at (lstat), else without them.
std::string permission_refusal(const std::string& path, const struct stat* info);

// The outcome of opening a segment's file.
struct SegmentFile {
  enum class Status { opened, absent, refused } status = Status::absent;
  int fd = -1;         // opened: the caller closes it
  struct stat info {}; // opened: fstat of fd
  std::string refusal; // refused: the line to show
};

// Opens `path` for `access` (O_RDONLY or O_RDWR) without following a link and without blocking
// (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), then judges what fstat says of the open file (not of
// the name, which may change meanwhile). Absent when nothing is there.
SegmentFile open_segment_file(const std::string& path, int access, const OwnerPolicy& policy);

} // namespace netprof::shm
