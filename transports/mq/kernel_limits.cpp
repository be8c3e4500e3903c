#include "kernel_limits.hpp"

#include <netprof/errors.hpp>

#include <sys/resource.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

namespace netprof::mq {

namespace {

constexpr int cap_sys_resource = 24; // linux/capability.h
// ipc/mqueue.c: each message slot costs a struct msg_msg, each priority in use a tree node.
constexpr std::uint64_t msg_msg_bytes = 48;
constexpr std::uint64_t tree_node_bytes = 48;
constexpr std::uint64_t priorities = 32768; // MQ_PRIO_MAX

std::optional<std::uint64_t> read_number(const char* path)
{
  std::ifstream file(path);
  std::uint64_t value = 0;
  if (file >> value)
    return value;
  return std::nullopt;
}

// CapEff in /proc/self/status, bit CAP_SYS_RESOURCE: root without it (a container's, say) is
// held to the sysctls like anyone else.
bool has_cap_sys_resource()
{
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0)
      continue;
    std::uint64_t mask = 0;
    std::istringstream(line.substr(7)) >> std::hex >> mask;
    return (mask >> cap_sys_resource) & 1u;
  }
  return false;
}

std::string queue_bytes_text(const KernelLimits& limits)
{
  return limits.queue_bytes ? std::to_string(*limits.queue_bytes) + " B" : "unlimited";
}

} // namespace

KernelLimits KernelLimits::read()
{
  KernelLimits limits;
  limits.msg_max = read_number("/proc/sys/fs/mqueue/msg_max").value_or(limits.msg_max);
  limits.msgsize_max = read_number("/proc/sys/fs/mqueue/msgsize_max").value_or(limits.msgsize_max);
  limits.queues_max = read_number("/proc/sys/fs/mqueue/queues_max").value_or(limits.queues_max);
  rlimit budget{};
  if (getrlimit(RLIMIT_MSGQUEUE, &budget) == 0 && budget.rlim_cur != RLIM_INFINITY)
    limits.queue_bytes = budget.rlim_cur;
  limits.privileged = has_cap_sys_resource();
  return limits;
}

std::string KernelLimits::note() const
{
  return "kernel limits: fs.mqueue.msg_max " + std::to_string(msg_max) + " messages per queue (" +
         (privileged ? "this process has CAP_SYS_RESOURCE: up to 65536"
                     : "binding: this process lacks CAP_SYS_RESOURCE") +
         "), fs.mqueue.msgsize_max " + std::to_string(msgsize_max) +
         " B per message (binding for every process: netprof never exceeds it), "
         "fs.mqueue.queues_max " +
         std::to_string(queues_max) + " queues, RLIMIT_MSGQUEUE (ulimit -q) " +
         queue_bytes_text(*this) + " for all of this user's queues";
}

std::uint64_t accounted_bytes(std::size_t depth, std::size_t message_size) noexcept
{
  const std::uint64_t slots = depth;
  return slots * (msg_msg_bytes + message_size) + std::min(slots, priorities) * tree_node_bytes;
}

std::size_t choose_depth(std::optional<std::size_t> requested, const KernelLimits& limits,
                         std::string& note)
{
  if (!requested) {
    const std::size_t depth = std::min(default_depth, limits.depth_limit());
    note = "queue depth " + std::to_string(depth) + " messages (--mq-depth; " +
           (depth < default_depth ? "the default 10 lowered to fs.mqueue.msg_max" : "the default") +
           "); -q does not apply to mq";
    return depth;
  }
  if (*requested > limits.depth_limit())
    throw UsageError("--mq-depth " + std::to_string(*requested) +
                     " is deeper than the kernel allows this process: fs.mqueue.msg_max is " +
                     std::to_string(limits.msg_max) +
                     " without CAP_SYS_RESOURCE (raise it with sysctl -w fs.mqueue.msg_max=" +
                     std::to_string(*requested) + ", or give --mq-depth " +
                     std::to_string(limits.msg_max) + " or less)");
  note = "queue depth " + std::to_string(*requested) +
         " messages (--mq-depth); -q does not "
         "apply to mq";
  return *requested;
}

std::string creation_refusal(const std::string& name, int error, std::size_t depth,
                             std::size_t message_size, const KernelLimits& limits)
{
  const std::string what = "the kernel refused to create message queue " + name + " (" +
                           std::to_string(depth) + " messages of " + std::to_string(message_size) +
                           " B): ";
  switch (error) {
  case EINVAL:
    return what + "a queue may hold at most fs.mqueue.msg_max (" + std::to_string(limits.msg_max) +
           ") messages of at most fs.mqueue.msgsize_max (" + std::to_string(limits.msgsize_max) +
           " B) without CAP_SYS_RESOURCE, and 65536 messages with it";
  case EMFILE:
    return what + "it would take about " + std::to_string(accounted_bytes(depth, message_size)) +
           " B of RLIMIT_MSGQUEUE (ulimit -q, " + queue_bytes_text(limits) +
           "), which all of this user's queues share (or no descriptor is left: ulimit -n); give "
           "a smaller --mq-depth or raise ulimit -q";
  case ENOSPC:
    return what + "the system already has fs.mqueue.queues_max (" +
           std::to_string(limits.queues_max) + ") queues";
  case ENOMEM:
    return what + "out of memory";
  case ENOSYS:
    return what + "this kernel has no POSIX message queues (CONFIG_POSIX_MQUEUE)";
  default:
    return what + std::generic_category().message(error);
  }
}

} // namespace netprof::mq
