#include "key_file.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace netprof::cli {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why)
{
  throw UsageError("invalid value '" + path + "' for --key-file: " + why);
}

class FileCloser {
public:
  explicit FileCloser(int fd) : m_fd(fd) {}
  ~FileCloser() { ::close(m_fd); }
  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;

private:
  int m_fd;
};

} // namespace

std::vector<std::byte> read_key_file(const std::string& path)
{
  // O_NONBLOCK: a FIFO in its place must not hang the parse; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    refuse(path, errno == ELOOP ? "it is a symbolic link (give the file itself)"
                                : std::string("cannot read it (") + std::strerror(errno) + ")");
  const FileCloser closer(fd);
  struct stat facts {};
  if (fstat(fd, &facts) != 0)
    refuse(path, std::string("cannot read it (") + std::strerror(errno) + ")");
  if (!S_ISREG(facts.st_mode))
    refuse(path, "not a regular file");
  // As ssh refuses a key another user owns: whoever owns the file may change the secret (or
  // read it, and forge our control messages), however private its mode.
  if (facts.st_uid != ::geteuid() && facts.st_uid != 0)
    refuse(path, "it belongs to another user (uid " + std::to_string(facts.st_uid) +
                     "): a shared secret must be owned by the user running netprof (or root)");
  if ((facts.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    refuse(path, "others may read it: a shared secret must be readable by its owner alone "
                 "(chmod 600 it)");
  if (facts.st_size < static_cast<off_t>(min_secret_bytes) ||
      facts.st_size > static_cast<off_t>(max_secret_bytes))
    refuse(path, "it holds " + std::to_string(facts.st_size) + " B; a secret needs " +
                     std::to_string(min_secret_bytes) + " B to 1 MiB (head -c 32 /dev/urandom)");
  std::vector<std::byte> secret(static_cast<std::size_t>(facts.st_size));
  std::size_t filled = 0;
  while (filled < secret.size()) {
    const ssize_t got = ::read(fd, secret.data() + filled, secret.size() - filled);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      refuse(path, "it changed while being read");
    filled += static_cast<std::size_t>(got);
  }
  return secret;
}

} // namespace netprof::cli
