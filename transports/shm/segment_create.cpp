// Making a segment, and what to do with one already found under its name: replace it when its
// owner died, clean it up when nobody will ask for that name again.
#include "segment.hpp"

#include <netprof/errors.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

namespace netprof::shm {

namespace {

// A creator that is still between shm_open and its ready store looks invalid for a moment;
// this long it gets before its segment is judged stale.
constexpr auto initialization_grace = std::chrono::milliseconds(200);

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

std::uint64_t random_u64()
{
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// What a segment found under our name is.
struct Existing {
  enum class Kind { vanished, live_owner, dead_owner, invalid } kind = Kind::vanished;
  pid_t owner = 0;
};

Existing inspect_existing(const std::string& path, const OwnerPolicy& owners)
{
  const auto give_up = std::chrono::steady_clock::now() + initialization_grace;
  for (;;) {
    const SegmentFile file = open_segment_file(path, O_RDONLY, owners);
    if (file.status == SegmentFile::Status::absent)
      return {Existing::Kind::vanished, 0};
    if (file.status == SegmentFile::Status::refused)
      throw TransportError(file.refusal);
    Existing found{Existing::Kind::invalid, 0};
    // Read, not mapped: a file truncated meanwhile reads short instead of raising SIGBUS.
    SegmentHeader header{};
    if (pread(file.fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
        header_matches(header) && header.owner_pid > 0) {
      found.owner = header.owner_pid;
      found.kind =
          process_alive(header.owner_pid) ? Existing::Kind::live_owner : Existing::Kind::dead_owner;
    }
    close(file.fd);
    if (found.kind != Existing::Kind::invalid || std::chrono::steady_clock::now() >= give_up)
      return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Creates the object under `object` (O_EXCL), replacing a segment whose owner died or that was
// never finished; says so in `replaced_note`.
int create_object(const std::string& name, const std::string& object, const std::string& path,
                  const OwnerPolicy& owners, std::string& replaced_note)
{
  for (int attempt = 0;; ++attempt) {
    const int fd = shm_open(object.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
      return fd;
    if (errno != EEXIST)
      throw TransportError("cannot create the shared-memory segment " + path + ": " +
                           error_text(errno));
    if (attempt == 3)
      throw TransportError("cannot create the shared-memory segment " + path +
                           ": another one keeps appearing under that name");
    const Existing existing = inspect_existing(path, owners);
    switch (existing.kind) {
    case Existing::Kind::vanished:
      continue;
    case Existing::Kind::live_owner:
      throw TransportError("shared-memory segment " + name + " (" + path + ") is in use by PID " +
                           std::to_string(existing.owner));
    case Existing::Kind::dead_owner:
      replaced_note = "replaced a stale segment left by PID " + std::to_string(existing.owner) +
                      " (" + path + ")";
      break;
    case Existing::Kind::invalid:
      replaced_note = "replaced an invalid segment found at " + path;
      break;
    }
    if (shm_unlink(object.c_str()) != 0 && errno != ENOENT)
      throw TransportError("cannot remove the stale shared-memory segment " + path + ": " +
                           error_text(errno));
  }
}

void write_header(SegmentHeader& header, const SegmentLayout& layout, History history)
{
  header.magic = segment_magic;
  header.version = segment_version;
  header.header_bytes = sizeof(SegmentHeader);
  header.total_bytes = layout.total_bytes;
  header.ring_capacity = layout.ring_capacity;
  header.back_capacity = layout.back_capacity;
  header.data_ring_offset = layout.data_ring_offset;
  header.slot_stride = layout.slot_stride;
  header.slots = static_cast<std::uint32_t>(layout.slots);
  header.history = static_cast<std::uint32_t>(history);
  header.owner_pid = getpid();
  header.generation = random_u64();
}

} // namespace

std::vector<std::string> remove_abandoned_segments(const std::string& name_prefix) noexcept
{
  std::vector<std::string> removed;
  const std::string file_prefix = object_name(name_prefix).substr(1);
  DIR* directory = opendir("/dev/shm");
  if (directory == nullptr)
    return removed;
  while (const dirent* entry = readdir(directory)) {
    try {
      const std::string file = entry->d_name;
      if (file.rfind(file_prefix, 0) != 0)
        continue;
      const std::string object = "/" + file;
      // Only our own: another user's pair is theirs to clean up, and a FIFO is nobody's pair.
      if (inspect_existing("/dev/shm" + object, OwnerPolicy{}).kind == Existing::Kind::dead_owner &&
          shm_unlink(object.c_str()) == 0)
        removed.push_back("/dev/shm" + object);
    } catch (...) {
      // Refused (not ours, not a segment), or no memory: on to the next.
    }
  }
  closedir(directory);
  return removed;
}

Segment::Created Segment::create(const std::string& name, std::size_t ring_capacity,
                                 History history, const OwnerPolicy& owners)
{
  const std::string object = object_name(name);
  const std::string path = object_path(name);
  Created created;
  const int fd = create_object(name, object, path, owners, created.replaced_note);

  const SegmentLayout layout =
      SegmentLayout::compute(ring_capacity, back_ring_capacity, slot_count);
  const auto fail = [&](const std::string& what, int error) {
    close(fd);
    shm_unlink(object.c_str());
    return TransportError(what + " " + path + ": " + error_text(error));
  };
  // fallocate rather than ftruncate alone: a full /dev/shm fails here, at setup, instead of
  // with SIGBUS at the first write that finds no page.
  const int reserved = posix_fallocate(fd, 0, static_cast<off_t>(layout.total_bytes));
  if (reserved != 0)
    throw fail("cannot reserve " + std::to_string(layout.total_bytes) + " B for", reserved);
  void* mapped = mmap(nullptr, layout.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED)
    throw fail("cannot map", errno);
  Segment segment(fd, static_cast<std::byte*>(mapped), layout.total_bytes, layout);

  SegmentHeader& header = segment.header();
  write_header(header, layout, history);
  if (!RingView::format(segment.data_ring_memory(), ring_capacity, slot_count, history,
                        random_u64())) {
    segment.unlink_if_ours(name);
    throw TransportError("cannot format a ring of " + std::to_string(ring_capacity) + " B in " +
                         path);
  }
  std::atomic_ref<std::uint32_t>(header.state)
      .store(static_cast<std::uint32_t>(SegmentState::ready), std::memory_order_release);
  created.segment = std::move(segment);
  return created;
}

} // namespace netprof::shm
