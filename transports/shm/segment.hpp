#pragma once

// The shared-memory segment: one POSIX shm object, /dev/shm/netprof-NAME, created 0600 by the
// publisher. Everything in it is found by offset from its start, never by pointer.
//
//   offset                 what
//   0                      SegmentHeader (2 lines): magic, version, sizes, owner PID,
//                          generation, state
//   128                    SlotTable (1 line): bit masks of claimed and ready slots
//   192                    WakeLine (1 line): subscribers ring it after writing a back ring;
//                          the publisher sleeps on it
//   256                    slot 0: SlotLine (1 line: subscriber id, PID, session) + back ring
//                          (a Ring with one reader, the publisher, keep_all), then slot 1, ...
//   data_ring_offset       the data ring: one writer (the publisher), one reader line per slot
//
// Slot i's subscriber reads the data ring as reader i. A subscriber claims a slot by setting
// its bit in `claimed`, formats its back ring, attaches as reader i, then sets its bit in
// `ready`; the publisher polls the back rings of ready slots. Leaving is the reverse.

#include "mapping_guard.hpp"
#include "ring.hpp"
#include "segment_file.hpp"
#include "wake_line.hpp"

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace netprof::shm {

inline constexpr std::uint64_t segment_magic = 0x314d48534652504eull; // "NPRFSHM1"
inline constexpr std::uint32_t segment_version = 1;
inline constexpr std::size_t slot_count = 64; // one bit each in SlotTable's masks
inline constexpr std::size_t back_ring_capacity = 64 * 1024;

enum class SegmentState : std::uint32_t { initializing = 0, ready = 1, closed = 2 };

struct alignas(cache_line) SegmentHeader {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t header_bytes; // sizeof(SegmentHeader), a cheap layout check
  std::uint64_t total_bytes;
  std::uint64_t ring_capacity;
  std::uint64_t back_capacity;
  std::uint64_t data_ring_offset;
  std::uint64_t slot_stride;
  std::uint32_t slots;
  std::uint32_t history;    // History
  std::int32_t owner_pid;   // the publisher; a dead owner means a stale segment
  std::uint32_t state;      // SegmentState, stored last (release) when ready
  std::uint64_t generation; // random per creation: tells a replaced segment apart
};

struct alignas(cache_line) SlotTable {
  std::uint64_t claimed; // bit i: slot i belongs to a subscriber (or one is setting it up)
  std::uint64_t ready;   // bit i: its back ring and data cursor are usable
  std::uint64_t changes; // bumped after every change to `ready`: the publisher's polls look
                         // at this one word, and at the slots only when it moved
};

struct alignas(cache_line) SlotLine {
  std::uint32_t subscriber_id;
  std::int32_t pid;
  std::uint64_t session; // bumped at every claim, so the publisher notices a reused slot
};

static_assert(sizeof(SegmentHeader) == 2 * cache_line);

// Ours, and of this layout version: what any other field says is worth reading.
inline bool header_matches(const SegmentHeader& header) noexcept
{
  return header.magic == segment_magic && header.version == segment_version &&
         header.header_bytes == sizeof(SegmentHeader);
}

// Where each part lives for given sizes; the creator writes these numbers into the header and
// an attaching process recomputes them to validate what it mapped.
struct SegmentLayout {
  std::size_t ring_capacity = 0;
  std::size_t back_capacity = 0;
  std::size_t slots = 0;
  std::size_t slot_stride = 0;
  std::size_t data_ring_offset = 0;
  std::size_t total_bytes = 0;

  static SegmentLayout compute(std::size_t ring_capacity, std::size_t back_capacity,
                               std::size_t slots) noexcept;
  static constexpr std::size_t table_offset = sizeof(SegmentHeader);
  static constexpr std::size_t wake_offset = table_offset + sizeof(SlotTable);
  static constexpr std::size_t slots_offset = wake_offset + sizeof(WakeLine);
};

// "/netprof-NAME" for shm_open, "/dev/shm/netprof-NAME" for people.
std::string object_name(const std::string& name);
std::string object_path(const std::string& name);

// Whether `pid` names a process at all: kill(pid, 0) succeeds or fails with EPERM. A zombie
// (killed outright, its parent has not reaped it yet) counts. One syscall, about 0.5 us here.
bool process_exists(pid_t pid) noexcept;

// Whether `pid` names a live process: it exists and is not a zombie, whose segment is abandoned
// all the same. Reads /proc/PID/stat as well: about 7.5 us here, so not for a measured loop.
bool process_alive(pid_t pid) noexcept;

// Removes the segments named `name_prefix`* whose owner process has died (a run killed with
// SIGKILL, or crashed), and returns their paths. Segments it cannot read, being set up, owned
// by a live process or by another user, and whatever is not a regular file, are left alone.
// For names nobody will create again (a local pair's), which Segment::create would otherwise
// never find and replace.
std::vector<std::string> remove_abandoned_segments(const std::string& name_prefix) noexcept;

// A mapped segment, unmapped and closed by the destructor. Whether to unlink is the owner's
// decision (Segment::unlink_if_ours).
class Segment {
public:
  Segment() = default;
  ~Segment();
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  struct Created;
  // Creates NAME exclusively (0600) and formats it. A segment already there whose owner is
  // dead, or whose header is not ours, is unlinked and replaced (`replaced_note` says so); a
  // live owner is a TransportError naming its PID. So is anything `owners` refuses (see
  // segment_file.hpp): another user's segment, a FIFO, a link, a file we may not open.
  static Created create(const std::string& name, std::size_t ring_capacity, History history,
                        const OwnerPolicy& owners = {});

  struct Found;
  // Maps an existing, ready segment. Never throws: subscribers call it from their measured
  // loop until the publisher is there.
  static Found open_existing(const std::string& name, const OwnerPolicy& owners = {}) noexcept;

  bool valid() const noexcept { return m_base != nullptr; }
  std::byte* base() const noexcept { return m_base; }
  SegmentHeader& header() const noexcept { return *reinterpret_cast<SegmentHeader*>(m_base); }
  SlotTable& table() const noexcept
  {
    return *reinterpret_cast<SlotTable*>(m_base + SegmentLayout::table_offset);
  }
  WakeLine& publisher_wake() const noexcept
  {
    return *reinterpret_cast<WakeLine*>(m_base + SegmentLayout::wake_offset);
  }
  const SegmentLayout& layout() const noexcept { return m_layout; }
  SlotLine& slot(std::size_t index) const noexcept;
  std::span<std::byte> back_ring_memory(std::size_t index) const noexcept;
  std::span<std::byte> data_ring_memory() const noexcept;

  SegmentState state() const noexcept;
  // Still the object that NAME refers to (not unlinked, not replaced by a newer segment).
  bool still_named(const std::string& path) const noexcept;
  // The file was truncated under us: a SIGBUS in our mapping replaced it with zeros
  // (MappingGuard). Costs a load, for idle polls.
  bool lost() const noexcept { return m_guard.lost(); }
  // The file is shorter than what we mapped, though nothing faulted yet. Costs an fstat, for
  // health checks.
  bool shrunk() const noexcept;
  // The line that says so, with the sizes.
  std::string truncation_text(const std::string& path) const;
  // Unlinks NAME if it still refers to this very segment.
  void unlink_if_ours(const std::string& name) noexcept;

private:
  Segment(int fd, std::byte* base, std::size_t size, SegmentLayout layout) noexcept;
  // Maps an opened file of `size` bytes if it holds a ready segment; closes fd if not.
  static std::optional<Segment> map_ready(int fd, std::size_t size) noexcept;
  void release() noexcept;

  int m_fd = -1;
  std::byte* m_base = nullptr;
  std::size_t m_size = 0;
  SegmentLayout m_layout;
  MappingGuard m_guard;
};

struct Segment::Found {
  std::optional<Segment> segment; // none: nothing there yet, or not ready; try again later
  std::string refusal;            // not empty: what is there must not be used (give up)
};

struct Segment::Created {
  Segment segment;
  std::string replaced_note; // empty unless a stale segment was replaced
};

} // namespace netprof::shm
