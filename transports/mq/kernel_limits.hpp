#pragma once

// What the kernel allows POSIX message queues: the sysctls under /proc/sys/fs/mqueue, the
// per-user byte budget RLIMIT_MSGQUEUE that every queue of a user draws on, and whether this
// process may go beyond the sysctls (CAP_SYS_RESOURCE). Read when a queue is planned, so a
// depth the kernel would refuse is named with its limit before anything is created, and an
// mq_open the kernel refuses anyway is explained in one line.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::mq {

// HARD_MSGMAX: no process gets a deeper queue, whatever its privileges (Linux 3.5 and later).
inline constexpr std::size_t hard_depth_limit = 65536;
// The kernel's own default depth (fs.mqueue.msg_default) and what a stock msg_max allows.
inline constexpr std::size_t default_depth = 10;

struct KernelLimits {
  std::size_t msg_max = 10;                 // fs.mqueue.msg_max
  std::size_t msgsize_max = 8192;           // fs.mqueue.msgsize_max
  std::size_t queues_max = 256;             // fs.mqueue.queues_max
  std::optional<std::uint64_t> queue_bytes; // RLIMIT_MSGQUEUE (soft); nothing: unlimited
  bool privileged = false;                  // CAP_SYS_RESOURCE: may exceed msg_max, up to 65536

  // This process's limits; the kernel's defaults for whatever cannot be read.
  static KernelLimits read();

  // The deepest queue this process may create.
  std::size_t depth_limit() const noexcept { return privileged ? hard_depth_limit : msg_max; }

  // For the report: every limit and its value.
  std::string note() const;
};

// Bytes a queue of this shape takes from RLIMIT_MSGQUEUE: the kernel's formula (ipc/mqueue.c)
// on 64-bit, so "about".
std::uint64_t accounted_bytes(std::size_t depth, std::size_t message_size) noexcept;

// The depth to use: `requested` when given (throws UsageError naming the limit when this
// process may not have it), else the default, lowered to msg_max if that is lower (said in
// `notes`).
std::size_t choose_depth(std::optional<std::size_t> requested, const KernelLimits& limits,
                         std::string& note);

// The line for an mq_open(O_CREAT) of `name` that failed with `error`, naming the limit that
// refused it.
std::string creation_refusal(const std::string& name, int error, std::size_t depth,
                             std::size_t message_size, const KernelLimits& limits);

} // namespace netprof::mq
