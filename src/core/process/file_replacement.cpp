#include "core/process/file_replacement.hpp"

#include "options/output_file_safety.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <system_error>

namespace netprof {

namespace {

constexpr int temporary_name_attempts = 100;

[[noreturn]] void fail(const std::string& what, int error)
{
  throw TransportError(what + ": " + std::generic_category().message(error));
}

std::string directory_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// No SA_RESTART on our signal handlers: an interrupt may cut a write short or fail it with
// EINTR, and neither is a reason to give up on the report.
void write_all(int fd, std::string_view contents)
{
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0)
      fail("writing it failed", errno);
    contents.remove_prefix(static_cast<std::size_t>(written));
  }
}

void sync(int fd)
{
  while (::fsync(fd) != 0) {
    if (errno != EINTR)
      fail("writing it to disk (fsync) failed", errno);
  }
}

// A file of our own beside the target, removed again unless it was renamed into place.
class TemporaryFile {
public:
  TemporaryFile(const std::string& directory, mode_t creation_mode)
  {
    for (int attempt = 0; attempt < temporary_name_attempts; ++attempt) {
      m_path = directory + "/.netprof-" + std::to_string(::getpid()) + "-" +
               std::to_string(attempt) + ".tmp";
      m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    creation_mode);
      if (m_fd >= 0)
        return;
      if (errno != EEXIST && errno != EINTR)
        break;
    }
    fail("cannot create a temporary file in '" + directory + "'", errno);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile()
  {
    if (m_fd >= 0)
      ::close(m_fd);
    if (!m_renamed)
      ::unlink(m_path.c_str());
  }

  int fd() const noexcept { return m_fd; }

  void close()
  {
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 && errno != EINTR)
      fail("writing it failed", errno);
  }

  void rename_to(const std::string& target)
  {
    if (::rename(m_path.c_str(), target.c_str()) != 0)
      fail("cannot rename the temporary file '" + m_path + "' over it", errno);
    m_renamed = true;
  }

private:
  std::string m_path;
  int m_fd = -1;
  bool m_renamed = false;
};

// The replacement takes the old file's place in every way we can give it. The old file is ours
// (another user's is refused); its group may be one we cannot give, which is no reason to lose
// the report.
void take_over_attributes(int fd, const struct stat& old)
{
  if (::fchmod(fd, old.st_mode & 07777) != 0)
    fail("cannot give the new file the old one's mode", errno);
  if (old.st_gid != ::getegid() && ::fchown(fd, old.st_uid, old.st_gid) != 0) {
    // Not a member of that group: the new file keeps ours.
  }
}

// The rename is durable once the directory is: best effort, since the file is in place already.
void sync_directory(const std::string& directory)
{
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  if (::fsync(fd) != 0) {
    // Some file systems cannot sync a directory; the report is in place all the same.
  }
  ::close(fd);
}

void write_in_place(const std::string& path, std::string_view contents)
{
  int fd = -1;
  do
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    fail("cannot open it", errno);
  try {
    write_all(fd, contents);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0 && errno != EINTR)
    fail("writing it failed", errno);
}

} // namespace

void replace_file(const std::string& path, std::string_view contents)
{
  // Checked while parsing too; again here, since a run is long enough to plant a link.
  if (const auto refusal = options::output_file_refusal(path))
    throw TransportError(*refusal + "; nothing was written");
  struct stat existing {};
  std::optional<struct stat> old;
  if (::lstat(path.c_str(), &existing) == 0) {
    if (!S_ISREG(existing.st_mode)) {
      write_in_place(path, contents);
      return;
    }
    old = existing;
  } else if (errno != ENOENT) {
    fail("cannot look at it", errno);
  }
  const std::string directory = directory_of(path);
  try {
    // Created private while it holds part of a report that is replacing a private file.
    TemporaryFile temporary(directory, old ? 0600 : 0644);
    if (old)
      take_over_attributes(temporary.fd(), *old);
    write_all(temporary.fd(), contents);
    sync(temporary.fd());
    temporary.close();
    temporary.rename_to(path);
  } catch (const TransportError& error) {
    throw TransportError(std::string(error.what()) +
                         (old ? "; the old file is left as it was" : "; no file was written"));
  }
  sync_directory(directory);
}

} // namespace netprof
