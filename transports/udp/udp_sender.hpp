#pragma once

#include "fragmenter.hpp"
#include "peer_table.hpp"

#include "common/send_cause.hpp"

#include <netprof/transport.hpp>

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace netprof::udp {

struct SenderSettings {
  std::size_t max_message_size = 0; // send() refuses larger messages
  std::size_t fragment_size = 0;    // larger messages are fragmented
  std::size_t batch = 1;            // messages per sendmmsg; 1 sends each at once
  bool gso = true;                  // batches: equal-sized messages as one UDP GSO send
  std::uint32_t first_message_id = 0;
};

// The sending half of a UDP endpoint: one datagram per message when it fits the fragment size,
// fragments sent with sendmmsg straight from the caller's buffer otherwise, and optionally a
// batch of small messages sent with one sendmmsg. Everything is allocated in the constructor.
//
// A batch goes out as one sendmmsg. With `gso`, each run of equal-sized messages in it (the
// last may be shorter) is one entry with UDP_SEGMENT: the kernel walks its stack once per run
// and still puts one datagram per message on the wire. A kernel or device that refuses GSO
// turns it off for good, and the batch goes as one entry per message.
//
// Back-pressure: send() reports back_pressured only when nothing of the message went out, so
// the core may simply retry. Once part of a message (or batch) is out, the rest is pushed
// through, waiting for the socket at most `stall_limit` at a time; what still does not fit
// is dropped and shows up as loss, like a peer that was skipped.
class UdpSender {
public:
  UdpSender(int fd, PeerTable& peers, const SenderSettings& settings);
  UdpSender(const UdpSender&) = delete; // headers point into it
  UdpSender& operator=(const UdpSender&) = delete;

  // What was not sent comes back with the cause of the system call that refused it.
  SendOutcome send(std::span<const std::byte> message) noexcept;
  SendOutcome flush() noexcept;
  // To the peer at `peer` in the table alone (--fanout round-robin), never batched: what is
  // queued goes first, to every peer, so messages keep their order.
  SendOutcome send_to(std::size_t peer, std::span<const std::byte> message) noexcept;
  // RoomWaiter::wait_for_room: until a socket it sends on turns writable, at most `timeout`.
  RoomWait wait_for_room(Nanoseconds timeout) noexcept;

  // A socket connected to the only peer: while there is exactly one, single datagrams go
  // through it with send(), which skips the route lookup of every sendto(). -1: none.
  void send_single_peer_through(int connected_fd) noexcept { m_connected_fd = connected_fd; }

  std::size_t max_message_size() const noexcept { return m_settings.max_message_size; }
  std::size_t batch() const noexcept { return m_settings.batch; }
  // The errno with which the kernel refused UDP GSO, once it did; 0 before.
  int gso_refused_error() const noexcept { return m_gso_refused_error; }
  // Sends the kernel failed with ECONNREFUSED: an earlier datagram found the port closed.
  std::uint64_t refusals() const noexcept { return m_refusals; }

  static constexpr Nanoseconds stall_limit = std::chrono::milliseconds(100);

private:
  // How far pushing datagrams got, across all peers of one message or batch.
  struct Progress {
    bool committed = false; // at least one datagram went to at least one peer
    bool would_block = false;
    bool failed = false;
    SendResult result() const noexcept;
  };

  // Whom one message goes to: `count` peers of the table from `first` on, wrapping around.
  struct Targets {
    std::size_t first = 0;
    std::size_t count = 0;
  };

  SendOutcome outcome(SendResult result) const noexcept;
  SendResult send_message(std::span<const std::byte> message) noexcept;
  SendResult send_batch() noexcept; // flush()
  // Every peer, starting at the next one in turn.
  Targets every_peer() noexcept;
  SendResult send_now(std::span<const std::byte> message, Targets targets) noexcept;
  SendResult send_single(std::span<const std::byte> message, Targets targets) noexcept;
  SendResult send_fragmented(std::span<const std::byte> message, Targets targets) noexcept;
  // Sends headers[0, count) (all to one peer), following the back-pressure rule above.
  // Returns how many went out.
  std::size_t push(mmsghdr* headers, std::size_t count, Progress& progress) noexcept;
  bool wait_writable(Clock::time_point deadline) noexcept;
  // The peer a message starts with, one further each time (fan-out in turn).
  std::size_t next_first_peer(std::size_t peer_count) noexcept;
  // One datagram to peers [from, to) with m_peer_headers; false when the socket's buffer
  // filled (the peers after it were not tried).
  bool send_to_peers(std::size_t from, std::size_t to, std::size_t& delivered,
                     int& last_error) noexcept;
  bool fits_batch(std::span<const std::byte> message) const noexcept;
  // Groups the queued messages from index `from` on into m_run_headers; returns how many
  // entries.
  std::size_t build_runs(std::size_t from) noexcept;

  int m_fd;
  int m_connected_fd = -1;
  PeerTable& m_peers;
  SenderSettings m_settings;
  std::uint32_t m_next_message_id;
  int m_last_error = 0; // of the failed send system call of this send() or flush(); 0: none
  int m_gso_refused_error = 0;
  std::uint64_t m_refusals = 0;
  std::size_t m_next_first_peer = 0;

  // One datagram to every peer: one header per peer, all sharing m_single_iov.
  iovec m_single_iov{};
  std::unique_ptr<mmsghdr[]> m_peer_headers;

  // Fragments: one header per fragment of a chunk, two iovecs each (the fragmenter's).
  Fragmenter m_fragmenter;
  std::unique_ptr<mmsghdr[]> m_fragment_headers;
  std::unique_ptr<bool[]> m_peer_abandoned;

  // Batch: copies of up to `batch` small messages, an iovec each, sent as runs: one sendmmsg
  // entry per run of equal-sized messages with GSO, per message without.
  std::size_t m_batch_slot_size = 0;
  std::unique_ptr<std::byte[]> m_batch_storage;
  std::unique_ptr<iovec[]> m_batch_iovs;
  std::size_t m_queued = 0;
  std::unique_ptr<mmsghdr[]> m_run_headers;
  // A UDP_SEGMENT control message per run, run_control_size bytes each.
  static constexpr std::size_t run_control_size = CMSG_SPACE(sizeof(std::uint16_t));
  std::unique_ptr<std::byte[]> m_run_control;
};

} // namespace netprof::udp
