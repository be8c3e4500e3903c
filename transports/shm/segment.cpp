#include "segment.hpp"

#include <netprof/errors.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
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

bool header_matches(const SegmentHeader& header) noexcept
{
  return header.magic == segment_magic && header.version == segment_version &&
         header.header_bytes == sizeof(SegmentHeader);
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

SegmentLayout SegmentLayout::compute(std::size_t ring_capacity, std::size_t back_capacity,
                                     std::size_t slots) noexcept
{
  SegmentLayout layout;
  layout.ring_capacity = ring_capacity;
  layout.back_capacity = back_capacity;
  layout.slots = slots;
  layout.slot_stride = sizeof(SlotLine) + RingView::bytes_needed(back_capacity, 1);
  layout.data_ring_offset = slots_offset + slots * layout.slot_stride;
  layout.total_bytes = layout.data_ring_offset + RingView::bytes_needed(ring_capacity, slots);
  return layout;
}

std::string object_name(const std::string& name)
{
  return "/netprof-" + name;
}

std::string object_path(const std::string& name)
{
  return "/dev/shm" + object_name(name);
}

namespace {

// A zombie (killed, not yet reaped by its parent) still answers kill(pid, 0), but it will never
// touch its segment again. /proc/PID/stat's third field is the state; the second, the command
// name in parentheses, may itself hold ") ", so the state follows the last ')'. Without /proc
// (or once the process is gone) this says nothing and kill's answer stands.
bool is_zombie(pid_t pid) noexcept
{
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char stat[512];
  const ssize_t length = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (length <= 0)
    return false;
  stat[length] = '\0';
  const char* name_end = std::strrchr(stat, ')');
  if (name_end == nullptr || name_end[1] != ' ')
    return false;
  const char state = name_end[2];
  return state == 'Z' || state == 'X';
}

} // namespace

bool process_exists(pid_t pid) noexcept
{
  return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

bool process_alive(pid_t pid) noexcept
{
  return process_exists(pid) && !is_zombie(pid);
}

Segment::Segment(int fd, std::byte* base, std::size_t size, SegmentLayout layout) noexcept
    : m_fd(fd), m_base(base), m_size(size), m_layout(layout), m_guard(base, size)
{
}

Segment::~Segment()
{
  release();
}

Segment::Segment(Segment&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_base(std::exchange(other.m_base, nullptr)),
      m_size(std::exchange(other.m_size, 0)), m_layout(other.m_layout),
      m_guard(std::move(other.m_guard))
{
}

Segment& Segment::operator=(Segment&& other) noexcept
{
  if (this != &other) {
    release();
    m_fd = std::exchange(other.m_fd, -1);
    m_base = std::exchange(other.m_base, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_layout = other.m_layout;
    m_guard = std::move(other.m_guard);
  }
  return *this;
}

void Segment::release() noexcept
{
  m_guard.release();
  if (m_base != nullptr)
    munmap(m_base, m_size);
  if (m_fd >= 0)
    close(m_fd);
  m_base = nullptr;
  m_fd = -1;
  m_size = 0;
}

SlotLine& Segment::slot(std::size_t index) const noexcept
{
  return *reinterpret_cast<SlotLine*>(m_base + SegmentLayout::slots_offset +
                                      index * m_layout.slot_stride);
}

std::span<std::byte> Segment::back_ring_memory(std::size_t index) const noexcept
{
  std::byte* start =
      m_base + SegmentLayout::slots_offset + index * m_layout.slot_stride + sizeof(SlotLine);
  return {start, m_layout.slot_stride - sizeof(SlotLine)};
}

std::span<std::byte> Segment::data_ring_memory() const noexcept
{
  return {m_base + m_layout.data_ring_offset, m_layout.total_bytes - m_layout.data_ring_offset};
}

SegmentState Segment::state() const noexcept
{
  return static_cast<SegmentState>(
      std::atomic_ref<std::uint32_t>(header().state).load(std::memory_order_acquire));
}

bool Segment::still_named(const std::string& path) const noexcept
{
  struct stat ours {};
  struct stat named {};
  return fstat(m_fd, &ours) == 0 && lstat(path.c_str(), &named) == 0 &&
         ours.st_dev == named.st_dev && ours.st_ino == named.st_ino;
}

bool Segment::shrunk() const noexcept
{
  struct stat status {};
  return m_fd >= 0 && fstat(m_fd, &status) == 0 &&
         static_cast<std::size_t>(status.st_size) < m_size;
}

std::string Segment::truncation_text(const std::string& path) const
{
  struct stat status {};
  const std::string now = m_fd >= 0 && fstat(m_fd, &status) == 0
                              ? std::to_string(status.st_size) + " B"
                              : "unknown size";
  return "the shared-memory segment " + path + " was truncated while in use (now " + now +
         ", mapped " + std::to_string(m_size) + " B): ending the run";
}

void Segment::unlink_if_ours(const std::string& name) noexcept
{
  if (valid() && still_named(object_path(name)))
    shm_unlink(object_name(name).c_str());
}

Segment::Created Segment::create(const std::string& name, std::size_t ring_capacity,
                                 History history, const OwnerPolicy& owners)
{
  const std::string object = object_name(name);
  const std::string path = object_path(name);
  Created created;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    fd = shm_open(object.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
      break;
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
      created.replaced_note = "replaced a stale segment left by PID " +
                              std::to_string(existing.owner) + " (" + path + ")";
      break;
    case Existing::Kind::invalid:
      created.replaced_note = "replaced an invalid segment found at " + path;
      break;
    }
    if (shm_unlink(object.c_str()) != 0 && errno != ENOENT)
      throw TransportError("cannot remove the stale shared-memory segment " + path + ": " +
                           error_text(errno));
  }

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

Segment::Found Segment::open_existing(const std::string& name, const OwnerPolicy& owners) noexcept
{
  Found found;
  try {
    SegmentFile file = open_segment_file(object_path(name), O_RDWR, owners);
    if (file.status == SegmentFile::Status::refused)
      found.refusal = std::move(file.refusal);
    if (file.status != SegmentFile::Status::opened)
      return found;
    found.segment = map_ready(file.fd, static_cast<std::size_t>(file.info.st_size));
  } catch (...) {
    found.segment.reset(); // out of memory: nothing yet, as far as the caller can tell
  }
  return found;
}

std::optional<Segment> Segment::map_ready(int fd, std::size_t size) noexcept
{
  if (size < sizeof(SegmentHeader)) { // a publisher between creating and sizing it
    close(fd);
    return std::nullopt;
  }
  void* mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) {
    close(fd);
    return std::nullopt;
  }
  Segment segment(fd, static_cast<std::byte*>(mapped), size, SegmentLayout{});
  if (segment.state() != SegmentState::ready) // also orders the reads of the header below
    return std::nullopt;
  const SegmentHeader& header = segment.header();
  if (!header_matches(header) || header.slots == 0 || header.slots > slot_count)
    return std::nullopt;
  const SegmentLayout layout =
      SegmentLayout::compute(header.ring_capacity, header.back_capacity, header.slots);
  if (layout.total_bytes != size || header.total_bytes != size ||
      header.data_ring_offset != layout.data_ring_offset ||
      header.slot_stride != layout.slot_stride)
    return std::nullopt;
  segment.m_layout = layout;
  const auto ring = RingView::open(segment.data_ring_memory());
  if (!ring || ring->capacity() != header.ring_capacity || ring->readers() != header.slots)
    return std::nullopt;
  return segment;
}

} // namespace netprof::shm
