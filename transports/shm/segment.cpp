#include "segment.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace netprof::shm {

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
