#pragma once

// What a bare stream over a connected pair of sockets needs (bare_uds_stream.cpp; a TCP one
// would only make its pair): a sender that writes --size-byte messages as fast as the kernel
// takes them, one send each, blocking when the socket is full (the receiver's pace pushes back),
// and a receiver that counts them on its own clock, as netprof's subscriber does: from the first
// measured message to the last, N - 1 intervals over that time. Still no netprof code.
//
// Like netprof's stream endpoint: both ends' buffers are sized as -q sizes them (--buffer, set
// with SO_SNDBUF and SO_RCVBUF, the FORCE variants past the sysctl), a SOCK_SEQPACKET record is
// read one a recv, and a byte stream is read into a 64 KiB buffer, as many messages a recv as
// have come. --warmup seconds of messages go first, unmeasured; then --seconds measured; then an
// end message carrying how many measured messages were sent, which the receiver checks against
// its count (a Unix or TCP socket loses nothing: a difference is a bug here).
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_stream_pingpong.hpp"

#include <sys/prctl.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace bare {

struct ThroughputOptions {
  std::size_t size = 180; // netprof -s 128 over seqpacket: its 52 B header and the payload
  double seconds = 2.0;
  double warmup = 0.5;          // netprof's --warmup-time default
  std::size_t buffer = 1000000; // netprof's -q default; 0: the OS default
  Wait wait = Wait::block;
  std::optional<std::pair<int, int>> cpus; // sender, receiver; none: unpinned
  std::string kind;                        // a file's own option (--type for uds)
};

namespace throughput_detail {

using Clock = std::chrono::steady_clock;

// Byte 0 says what a message is; an end carries the number of measured messages sent after it.
constexpr std::byte warmup_tag{'W'};
constexpr std::byte data_tag{'D'};
constexpr std::byte end_tag{'E'};
constexpr std::size_t count_offset = 8;
constexpr std::size_t min_size = count_offset + sizeof(std::uint64_t);
constexpr std::size_t max_size = std::size_t{1} << 20;
// netprof's subscriber reads a byte stream into this much (stream_connections.cpp).
constexpr std::size_t stream_reader_bytes = 65536;
// The sender reads its clock once per this many sends.
constexpr std::uint64_t sends_per_check = 64;
constexpr auto io_timeout = std::chrono::seconds(10);

inline Clock::duration seconds(double value)
{
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

// What a buffer holds for data, as netprof reports it: half what getsockopt says (Linux doubles
// what is set, for its bookkeeping).
inline std::size_t read_buffer(int fd, int option)
{
  int value = 0;
  socklen_t length = sizeof value;
  getsockopt(fd, SOL_SOCKET, option, &value, &length);
  return static_cast<std::size_t>(value) / 2;
}

// As netprof sizes a socket's buffers for -q: the plain option, then the FORCE one when the
// sysctl clamped it (it needs CAP_NET_ADMIN; without it the clamped size stays). 0: untouched.
inline void size_buffers(int fd, std::size_t bytes)
{
  if (bytes == 0)
    return;
  const int value = static_cast<int>(std::min<std::size_t>(bytes, 1U << 30));
  for (const auto& [option, force] :
       {std::pair{SO_SNDBUF, SO_SNDBUFFORCE}, std::pair{SO_RCVBUF, SO_RCVBUFFORCE}}) {
    if (setsockopt(fd, SOL_SOCKET, option, &value, sizeof value) != 0)
      throw Failure{"setsockopt SO_SNDBUF/SO_RCVBUF", errno};
    if (read_buffer(fd, option) < bytes)
      setsockopt(fd, SOL_SOCKET, force, &value, sizeof value);
  }
}

inline void set_timeouts(int fd)
{
  const timeval limit{static_cast<time_t>(io_timeout.count()), 0};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit) != 0)
    throw Failure{"setsockopt SO_RCVTIMEO/SO_SNDTIMEO", errno};
}

// One message, whole: a record goes in one send; a byte stream may take part of it.
inline void send_message(int fd, const std::byte* bytes, std::size_t size, Wait wait)
{
  const int flags = MSG_NOSIGNAL | (wait == Wait::spin ? MSG_DONTWAIT : 0);
  Clock::time_point give_up{}; // read only once the socket is full: a send reads no clock
  std::size_t sent = 0;
  for (std::uint32_t turn = 1; sent < size; ++turn) {
    const ssize_t put = send(fd, bytes + sent, size - sent, flags);
    if (put > 0) {
      sent += static_cast<std::size_t>(put);
      continue;
    }
    if (put < 0 && errno == EINTR)
      continue;
    if (put < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
      throw Failure{"send", errno};
    if (wait == Wait::block)
      throw Failure{"timed out waiting for room to send", 0};
    relax();
    if (give_up == Clock::time_point{})
      give_up = Clock::now() + io_timeout;
    else if ((turn & 1023) == 0 && Clock::now() >= give_up)
      throw Failure{"timed out waiting for room to send", 0};
  }
}

// The child: --warmup seconds of warm-up messages, --seconds of measured ones, then the end.
inline void run_sender(int fd, const ThroughputOptions& options)
{
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  const auto blast = [&](std::byte tag, Clock::duration length) {
    message[0] = tag;
    const auto end = Clock::now() + length;
    std::uint64_t sent = 0;
    for (;; ++sent) {
      if (sent % sends_per_check == 0 && Clock::now() >= end)
        return sent;
      send_message(fd, message.data(), message.size(), options.wait);
    }
  };
  if (options.warmup > 0)
    blast(warmup_tag, seconds(options.warmup));
  const std::uint64_t measured = blast(data_tag, seconds(options.seconds));
  message[0] = end_tag;
  std::memcpy(message.data() + count_offset, &measured, sizeof measured);
  send_message(fd, message.data(), message.size(), options.wait);
}

struct Result {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  Clock::time_point first{};
  Clock::time_point last{};
  bool ended = false;

  // False once the end has come.
  bool take(const std::byte* message)
  {
    if (message[0] == data_tag) {
      ++received;
      return true;
    }
    if (message[0] == end_tag) {
      std::memcpy(&sent, message + count_offset, sizeof sent);
      ended = true;
      return false;
    }
    if (message[0] != warmup_tag)
      throw Failure{"a message that the sender did not send", 0};
    return true;
  }

  // After a recv that brought messages: the measured ones are stamped with its time.
  void stamp(std::uint64_t received_before)
  {
    if (received == received_before)
      return;
    last = Clock::now();
    if (received_before == 0)
      first = last;
  }
};

// Up to `size` bytes into `buffer`; what recv returned (> 0), after waiting as --wait says.
inline std::size_t receive_some(int fd, std::byte* buffer, std::size_t size, Wait wait, int flags)
{
  Clock::time_point give_up{}; // read only once the socket is empty
  for (std::uint32_t turn = 1;; ++turn) {
    const ssize_t got = recv(fd, buffer, size, flags | (wait == Wait::spin ? MSG_DONTWAIT : 0));
    if (got > 0)
      return static_cast<std::size_t>(got);
    if (got == 0)
      throw Failure{"the sender closed the connection before its end", 0};
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw Failure{"recv", errno};
    if (wait == Wait::block)
      throw Failure{"timed out waiting for a message", 0};
    relax();
    if (give_up == Clock::time_point{})
      give_up = Clock::now() + io_timeout;
    else if ((turn & 1023) == 0 && Clock::now() >= give_up)
      throw Failure{"timed out waiting for a message", 0};
  }
}

// The parent: one record a recv, as netprof reads a SOCK_SEQPACKET connection.
inline Result receive_records(int fd, const ThroughputOptions& options)
{
  std::vector<std::byte> record(options.size);
  Result result;
  for (bool more = true; more;) {
    const std::size_t got = receive_some(fd, record.data(), record.size(), options.wait, MSG_TRUNC);
    if (got != options.size)
      throw Failure{"a record of the wrong size arrived", 0};
    const std::uint64_t before = result.received;
    more = result.take(record.data());
    result.stamp(before);
  }
  return result;
}

// The parent: a byte stream read into a 64 KiB buffer, cut into --size-byte messages, what is
// left of a message moved to the front when the room behind it runs short (as netprof's frame
// reader does).
inline Result receive_stream(int fd, const ThroughputOptions& options)
{
  std::vector<std::byte> buffer(std::max(stream_reader_bytes, options.size));
  std::size_t begin = 0;
  std::size_t end = 0;
  Result result;
  for (bool more = true; more;) {
    if (begin == end) {
      begin = end = 0;
    } else if (buffer.size() - end < options.size) {
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    end += receive_some(fd, buffer.data() + end, buffer.size() - end, options.wait, 0);
    const std::uint64_t before = result.received;
    while (more && end - begin >= options.size) {
      more = result.take(buffer.data() + begin);
      begin += options.size;
    }
    result.stamp(before);
  }
  return result;
}

} // namespace throughput_detail

// Takes --size, --seconds, --warmup, --buffer, --wait or --cpu into `options`; false for any
// other flag.
inline bool take_throughput_option(std::string_view flag, std::string_view value,
                                   ThroughputOptions& options)
{
  using throughput_detail::max_size;
  using throughput_detail::min_size;
  if (flag == "--size")
    options.size =
        parse_number<std::size_t>(value, min_size, max_size, "--size must be 16 to 1048576 bytes");
  else if (flag == "--seconds")
    options.seconds = parse_number<double>(value, 0.1, 3600.0, "--seconds must be 0.1 to 3600");
  else if (flag == "--warmup")
    options.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  else if (flag == "--buffer")
    options.buffer = parse_number<std::size_t>(value, 0, std::size_t{1} << 30,
                                               "--buffer must be 0 to 2^30 bytes");
  else if (flag == "--wait" && (value == "block" || value == "spin"))
    options.wait = value == "spin" ? Wait::spin : Wait::block;
  else if (flag == "--wait")
    throw UsageError{"--wait must be block or spin"};
  else if (flag == "--cpu")
    options.cpus = parse_cpu_pair(value, "--cpu takes SENDER,RECEIVER, e.g. 0,1");
  else
    return false;
  return true;
}

// The forked child: pinned, it sends on its end of `pair` and exits (1 after saying why).
[[noreturn]] inline void run_forked_sender(const char* program, const SocketPair& pair,
                                           const ThroughputOptions& options, pid_t parent)
{
  using namespace throughput_detail;
  // Dies with the receiver, so a killed benchmark leaves no process behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent || !pin_to_cpu(first_cpu(options.cpus)))
    _exit(1);
  close(pair.second);
  try {
    run_sender(pair.first, options);
  } catch (const Failure& failure) {
    report_failure(program, failure);
    _exit(1);
  }
  _exit(0);
}

// The whole program once the options are parsed: makes the pair, sizes its buffers, forks the
// sender, receives, and prints `{"kind":...,"wait":...,"size":...,` the buffer asked and those
// granted (send_buffer, receive_buffer), the counts, the measured time and messages_per_second.
template <typename MakePair>
int run_stream_throughput(const char* program, const ThroughputOptions& options,
                          MakePair&& make_pair)
{
  using namespace throughput_detail;
  SocketPair pair;
  try {
    pair = make_pair(options);
    for (const int fd : {pair.first, pair.second}) {
      size_buffers(fd, options.buffer);
      set_timeouts(fd);
    }
  } catch (const Failure& failure) {
    report_failure(program, failure);
    return 1;
  }
  const std::size_t send_buffer = read_buffer(pair.first, SO_SNDBUF);
  const std::size_t receive_buffer = read_buffer(pair.second, SO_RCVBUF);
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent = getpid();
  const pid_t sender = fork();
  if (sender < 0) {
    report_failure(program, Failure{"fork", errno});
    return 1;
  }
  if (sender == 0)
    run_forked_sender(program, pair, options, parent);
  close(pair.first);
  Result result;
  try {
    if (!pin_to_cpu(second_cpu(options.cpus)))
      throw Failure{"cannot pin to the CPU given with --cpu", errno};
    result =
        pair.record ? receive_records(pair.second, options) : receive_stream(pair.second, options);
    if (result.received != result.sent)
      throw Failure{"the receiver counted another number of messages than the sender sent", 0};
  } catch (const Failure& failure) {
    report_failure(program, failure);
    kill(sender, SIGKILL);
    waitpid(sender, nullptr, 0);
    return 1;
  }
  close(pair.second);
  if (!reap_child(sender, io_timeout)) {
    std::fprintf(stderr, "%s: the sender failed\n", program);
    return 1;
  }
  const double measured = std::chrono::duration<double>(result.last - result.first).count();
  std::printf(
      "{\"kind\":\"%s\",\"wait\":\"%s\",\"size\":%zu,\"buffer\":%zu,"
      "\"send_buffer\":%zu,\"receive_buffer\":%zu,\"sent\":%llu,\"received\":%llu,"
      "\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
      options.kind.c_str(), options.wait == Wait::spin ? "spin" : "block", options.size,
      options.buffer, send_buffer, receive_buffer, static_cast<unsigned long long>(result.sent),
      static_cast<unsigned long long>(result.received), measured,
      result.received > 1 && measured > 0 ? static_cast<double>(result.received - 1) / measured
                                          : 0.0);
  return 0;
}

} // namespace bare
