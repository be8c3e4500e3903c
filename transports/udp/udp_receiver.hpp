#pragma once

#include "common/timed_poll.hpp"
#include "reassembler.hpp"

#include <netprof/transport.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace netprof::udp {

// The receiving half of a UDP endpoint: recvmmsg into preallocated slots, datagrams with the
// fragment magic through the reassembler, everything else to the sink as it came. On a shared
// medium it drops the datagrams its own endpoint sent.
class UdpReceiver {
public:
  // Datagrams taken per recvmmsg: enough to amortise the syscall, small enough that the core
  // gets control back often.
  static constexpr std::size_t batch = 32;
  // recvmmsg calls one receive() makes at most while the socket keeps filling whole batches,
  // so a backlog (a fragmented message, or our own traffic on a shared medium) drains in one
  // call without holding the core for long.
  static constexpr std::size_t max_batches_per_receive = 8;
  static constexpr std::size_t slot_size = 64 * 1024; // any IPv4 UDP datagram fits

  UdpReceiver(int fd, const ReassemblyLimits& limits, std::optional<sockaddr_in> own_source);
  UdpReceiver(const UdpReceiver&) = delete; // headers point into it
  UdpReceiver& operator=(const UdpReceiver&) = delete;

  // Endpoint::receive: with a zero timeout, one non-blocking drain.
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept;

  // Waits that leave a read at least this long sleep in one blocking read, as a blocking
  // program's recv() does; polling first and reading after costs two more system calls per
  // message (measured 5% of a blocking loopback round trip). SO_RCVTIMEO counts in scheduler
  // ticks, so a read that finds nothing may end two ticks late: each read is two ticks shorter
  // than the wait (tick_bounded_read.hpp), and shorter waits (a pacer's, a deadline's last
  // milliseconds) keep ppoll's exact timer; a read given the whole wait made a pacer below
  // 100 Hz send 4 ms late (docs/methodology.md, Pacing).
  static constexpr Nanoseconds shortest_blocking_read = std::chrono::milliseconds(10);
  // How long a newcomer's hello may wait in the first socket while a twin's read sleeps.
  static constexpr Nanoseconds lobby_wait = std::chrono::milliseconds(20);
  // A blocking read that returns sooner than this found its datagram waiting: the socket is
  // busy, and counts towards reading in batches as a non-blocking read that found one does.
  static constexpr Nanoseconds waiting_datagram_read = std::chrono::microseconds(5);

  // A second socket to drain: a twin connected to the only peer, which the kernel hands that
  // peer's datagrams (udp_sockets.hpp). It is drained on every call; the first socket, which
  // then hears only newcomers and strays, on every `lobby_poll_period`th busy-poll, or as soon
  // as a blocking wait finds it readable.
  void add_peer_socket(int fd, const sockaddr_in& peer) noexcept;
  // More peers joined the twin's: the first socket now carries their datagrams, so it is read
  // as often as the twin, and a wait sleeps on both (ppoll) rather than in the twin's read.
  void lobby_has_peers() noexcept { m_lobby_has_peers = true; }
  // The first socket was connected to `peer`: everything it delivers comes from there.
  void socket_connected_to(const sockaddr_in& peer) noexcept { m_socket.connected_to = peer; }
  static constexpr std::size_t lobby_poll_period = 16;

  const ReassemblyCounters& reassembly() const noexcept { return m_reassembler.counters(); }
  std::uint64_t truncated() const noexcept { return m_truncated; }
  // Receives the kernel failed with ECONNREFUSED: what this process sent to its connected peer
  // found the port closed (ICMP port unreachable).
  std::uint64_t refusals() const noexcept { return m_refusals; }

private:
  // A socket and how it is read: one datagram per call while it is quiet, batches while busy.
  struct Socket {
    int fd = -1;
    // Receives that found a datagram in a row while receiving one at a time; at the threshold
    // the receiver switches to batches, and back after a batch that found fewer than two.
    std::size_t busy_streak = 0;
    bool batching = false;
    // Connected: its datagrams come from here only, so a single receive need not ask the
    // kernel for the source (recv rather than recvmsg, the cheaper call when busy-polling).
    std::optional<sockaddr_in> connected_to;
    // O_NONBLOCK cleared, so a wait can be one blocking read; every other read passes
    // MSG_DONTWAIT (as every send through it does).
    bool blocking = false;
    Nanoseconds read_timeout{0}; // SO_RCVTIMEO as last set
  };
  static constexpr std::size_t busy_streak_for_batching = 2;

  // Receives without blocking: the number of messages handed to the sink, or -1 on a socket
  // error.
  int drain(MessageSink& sink) noexcept;
  int drain_socket(MessageSink& sink, Socket& socket) noexcept;
  // Waits up to `remaining` for either socket; what ppoll returned (0: the time passed).
  int wait_readable(Nanoseconds remaining) noexcept;
  // Fills the first `wanted` slots from the socket, without blocking unless `block`: then it
  // waits (up to SO_RCVTIMEO) for the first; the count, or -1 with errno set.
  int receive_datagrams(const Socket& socket, std::size_t wanted, bool block = false) noexcept;
  // Blocking reads on the socket its peers' datagrams come to: the only one, or the twin
  // (see shortest_blocking_read), each ending by `deadline`; nullopt, with nothing delivered,
  // once too little is left for another (the rest is ppoll's). With a twin, the first socket is
  // drained every `lobby_poll_period`th datagram and whenever a read waits `lobby_wait` in vain.
  std::optional<ReceiveResult> receive_blocking(MessageSink& sink, Socket& socket,
                                                Clock::time_point start,
                                                Clock::time_point deadline) noexcept;
  static bool set_read_timeout(Socket& socket, Nanoseconds timeout) noexcept;
  static bool clear_nonblocking(int fd) noexcept;
  // After a read that found `count` of `wanted` datagrams: whether to read in batches next.
  static void note_busyness(Socket& socket, int count, std::size_t wanted, bool waiting) noexcept;
  int deliver_batch(MessageSink& sink, std::size_t count) noexcept;
  bool is_own(const sockaddr_in& source) const noexcept;

  Socket m_socket;
  Socket m_peer_socket;
  std::size_t m_polls_since_lobby = 0;
  bool m_lobby_readable = false;
  bool m_lobby_has_peers = false;
  // The last receive with a timeout had to sleep for what it got: the next one sleeps first.
  bool m_slept_last_call = false;
  std::optional<sockaddr_in> m_own_source;
  Reassembler m_reassembler;

  std::unique_ptr<std::byte[]> m_storage;
  std::unique_ptr<iovec[]> m_iovs;
  std::unique_ptr<sockaddr_in[]> m_sources;
  std::unique_ptr<mmsghdr[]> m_headers;
  transport_common::TimedPoll m_wait; // wait_readable's

  std::uint64_t m_refusals = 0;
  std::uint64_t m_truncated = 0;
};

} // namespace netprof::udp
