#include "abandoned_queues.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace netprof::mq {

namespace {

const std::string marker_folder = "/dev/shm/";
const std::string marker_tag = ".mq-";

bool ours(const std::string& path) noexcept
{
  struct stat info {};
  return lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == geteuid();
}

// True when `queue` was removed; false when it is held, not ours, or cannot be looked at.
bool remove_if_abandoned(const std::string& queue, const std::string& marker) noexcept
{
  const mqd_t fd = mq_open(queue.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd == static_cast<mqd_t>(-1)) {
    if (errno == ENOENT)
      unlink(marker.c_str()); // its process removed the queue but died before the marker
    return false;
  }
  struct stat info {};
  const bool abandoned =
      fstat(fd, &info) == 0 && info.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0;
  if (abandoned) {
    mq_unlink(queue.c_str());
    unlink(marker.c_str());
  }
  mq_close(fd);
  return abandoned;
}

} // namespace

std::string marker_path(const std::string& queue)
{
  return marker_folder + marker_tag + queue.substr(1);
}

bool mark(const std::string& queue) noexcept
{
  try {
    const std::string path = marker_path(queue);
    const int fd =
        open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
      return false;
    struct stat info {};
    const bool usable = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == geteuid();
    close(fd);
    return usable;
  } catch (...) {
    return false;
  }
}

void unmark(const std::string& queue) noexcept
{
  try {
    const std::string path = marker_path(queue);
    if (ours(path))
      unlink(path.c_str());
  } catch (...) {
  }
}

std::vector<std::string> remove_abandoned_queues(const std::string& prefix) noexcept
{
  std::vector<std::string> removed;
  DIR* folder = opendir(marker_folder.c_str());
  if (folder == nullptr)
    return removed;
  try {
    const std::string wanted = marker_tag + prefix;
    while (const dirent* entry = readdir(folder)) {
      const std::string file = entry->d_name;
      if (file.rfind(wanted, 0) != 0)
        continue;
      const std::string marker = marker_folder + file;
      std::string queue = "/";
      queue += std::string_view(file).substr(marker_tag.size());
      if (ours(marker) && remove_if_abandoned(queue, marker))
        removed.push_back(queue);
    }
  } catch (...) {
    // Out of memory: what was removed so far is reported.
  }
  closedir(folder);
  return removed;
}

} // namespace netprof::mq
