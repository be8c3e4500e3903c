#pragma once

// Finding the queues a killed process left behind. POSIX queues can be listed only where the
// mqueue file system is mounted (/dev/mqueue), which many hosts and containers lack, so each
// queue netprof creates gets an empty marker file, /dev/shm/.mq-netprof-..., made after the
// queue and removed after it. A queue's creator holds flock(LOCK_EX) on its descriptor for as
// long as it lives, so a queue whose lock can be taken is abandoned, whatever its name says.

#include <string>
#include <vector>

namespace netprof::mq {

// The marker of queue "/netprof-..." : "/dev/shm/.mq-netprof-...".
std::string marker_path(const std::string& queue);

// Makes the marker (0600, never following a link, never blocking on a FIFO); false when it
// could not be made or something not ours is there.
bool mark(const std::string& queue) noexcept;

// Removes the marker if it is this user's regular file.
void unmark(const std::string& queue) noexcept;

// Removes this user's queues whose names, without the '/', start with `prefix` and that no
// live process holds, with their markers (and markers whose queue is gone). Returns the queues
// removed. Anything under a marker's name that is not this user's regular file is left alone.
std::vector<std::string> remove_abandoned_queues(const std::string& prefix) noexcept;

} // namespace netprof::mq
