#include "zmq_limits.hpp"

#include <netprof/errors.hpp>

#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace netprof::zeromq {

namespace {

// One at a time beside the connections: the files read and written at the end of a run (host
// facts, --json). What opening takes for a moment (checking an ipc:// path, resolving a name,
// reading the --zmq-curve file) is given back before the bound endpoint and the connections
// take their places.
constexpr std::size_t spare_descriptors = 1;
// What the rest of the run allocates after the socket opened (histograms, reports, libzmq's
// per-connection buffers), and malloc's slack.
constexpr std::size_t spare_bytes = std::size_t{6} << 20;
constexpr std::size_t kib = 1024;

// Descriptors open below `limit`: a new one takes the lowest free number, so only these
// take places it could have. The directory's own descriptor is not counted.
std::size_t descriptors_open_below(rlim_t limit) noexcept
{
  DIR* directory = opendir("/proc/self/fd");
  if (directory == nullptr) {
    return static_cast<std::size_t>(limit); // not even one to spare
  }
  const int own = dirfd(directory);
  std::size_t open = 0;
  while (const dirent* entry = readdir(directory)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && fd != own && static_cast<rlim_t>(fd) < limit) {
      ++open;
    }
  }
  closedir(directory);
  return open;
}

// The stack of each thread libzmq starts: glibc's default, from RLIMIT_STACK at start-up,
// and its guard page.
std::size_t thread_stack_bytes() noexcept
{
  pthread_attr_t attributes;
  std::size_t stack = std::size_t{8} << 20;
  std::size_t guard = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (pthread_getattr_default_np(&attributes) == 0) {
    pthread_attr_getstacksize(&attributes, &stack);
    pthread_attr_getguardsize(&attributes, &guard);
    pthread_attr_destroy(&attributes);
  }
  return stack + guard;
}

// /proc/self/statm: the whole address space, and the private data (with the stack), in bytes.
struct MemoryInUse {
  std::size_t address_space = 0;
  std::size_t data = 0;
};

MemoryInUse memory_in_use() noexcept
{
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0, shared = 0, text = 0, library = 0, data = 0;
  statm >> size >> resident >> shared >> text >> library >> data;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return {size * page, data * page};
}

std::string kib_text(std::size_t bytes)
{
  return std::to_string((bytes + kib - 1) / kib);
}

// When even the hard limit is below what is needed, raising the soft one is not enough.
std::string hard_limit_hint(rlim_t hard, std::size_t needed, const std::string& shown)
{
  if (hard == RLIM_INFINITY || hard >= needed) {
    return "";
  }
  return " (the hard limit is " + shown + ": only root can raise it that far)";
}

struct MemoryLimit {
  int resource;
  const char* name;
  const char* flag;
  std::size_t in_use;
};

void check_memory_limit(const MemoryLimit& limit, const ResourceNeeds& needs)
{
  rlimit value{};
  if (getrlimit(limit.resource, &value) != 0 || value.rlim_cur == RLIM_INFINITY) {
    return;
  }
  const std::size_t threads = static_cast<std::size_t>(needs.io_threads) + 1; // and the reaper
  const std::size_t stacks = threads * thread_stack_bytes();
  const std::size_t needed = limit.in_use + stacks + needs.queue_bytes + spare_bytes;
  if (value.rlim_cur >= needed) {
    return;
  }
  throw TransportError(
      std::string("too little memory allowed for ZeroMQ: ulimit ") + limit.flag + " (" +
      limit.name + ") is " + kib_text(value.rlim_cur) + " KiB, and this process needs at least " +
      kib_text(needed) + " KiB (" + kib_text(limit.in_use) + " in use, " + kib_text(stacks) +
      " for the stacks of ZeroMQ's " + std::to_string(threads) + " threads, " +
      kib_text(needs.queue_bytes) + " for its queues, " + kib_text(spare_bytes) +
      " to spare); raise it with ulimit " + limit.flag + " " + kib_text(needed) + " or more" +
      hard_limit_hint(value.rlim_max, needed, kib_text(value.rlim_max) + " KiB"));
}

} // namespace

std::size_t descriptors_needed(const ResourceNeeds& needs) noexcept
{
  return zeromq_descriptors(needs.io_threads) + 1 + needs.connections + spare_descriptors;
}

void check_descriptor_limit(const ResourceNeeds& needs)
{
  rlimit value{};
  if (getrlimit(RLIMIT_NOFILE, &value) != 0 || value.rlim_cur == RLIM_INFINITY) {
    return;
  }
  const std::size_t open = descriptors_open_below(value.rlim_cur);
  const std::size_t needed = open + descriptors_needed(needs);
  if (value.rlim_cur >= needed) {
    return;
  }
  throw TransportError("too few file descriptors for ZeroMQ: ulimit -n (RLIMIT_NOFILE) is " +
                       std::to_string(value.rlim_cur) + ", and this process needs at least " +
                       std::to_string(needed) + " (" + std::to_string(open) + " open, " +
                       std::to_string(zeromq_descriptors(needs.io_threads)) +
                       " for ZeroMQ's threads and socket, 1 for its endpoint, " +
                       std::to_string(needs.connections) + " for connections, " +
                       std::to_string(spare_descriptors) + " to spare); raise it with ulimit -n " +
                       std::to_string(needed) + " or more" +
                       hard_limit_hint(value.rlim_max, needed, std::to_string(value.rlim_max)));
}

void check_resource_limits(const ResourceNeeds& needs)
{
  check_descriptor_limit(needs);
  const MemoryInUse in_use = memory_in_use();
  check_memory_limit({RLIMIT_AS, "RLIMIT_AS, address space", "-v", in_use.address_space}, needs);
  check_memory_limit({RLIMIT_DATA, "RLIMIT_DATA, data", "-d", in_use.data}, needs);
}

} // namespace netprof::zeromq
