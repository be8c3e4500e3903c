#pragma once

// One connection of a stream transport, and the reads and writes every connection does:
// framed messages over a byte stream, or one message per record where the kernel keeps
// boundaries (SOCK_SEQPACKET). Sockets are non-blocking: nothing here waits.

#include "frame_reader.hpp"
#include "pending_output.hpp"

#include "common/unique_fd.hpp"

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace netprof::stream {

enum class Framing {
  length_prefixed, // a byte stream: every message behind a frame header (frame_reader.hpp)
  kernel_records   // SOCK_SEQPACKET: the kernel keeps each message whole
};

// How a read of one connection ended.
enum class ReadEnd {
  open,          // it may have more later
  closed,        // the peer closed it between messages
  mid_frame,     // the peer closed it in the middle of a message
  not_a_frame,   // it sent something that is not netprof's framing
  too_large,     // it announced (or sent) a message longer than the reader's limit
  out_of_memory, // a message within the limit could not be given room
  failed         // the socket reported an error (errno in ReadReport::error)
};

struct Connection {
  transport_common::UniqueFd fd;
  std::uint64_t serial = 0; // which connection this slot holds; 0 while it holds none
  bool adopted = false;     // sent to (the core adopted the sender of one of its messages)
  bool readable = false;    // may have messages: polled so, just opened, or cut short by a batch
  bool broken = false;      // to be closed once no delivery is under way (why: `ending`)
  ReadEnd ending = ReadEnd::open;
  int error = 0; // the errno of a failed read or write
  Clock::time_point opened{};
  std::string peer; // how the report names the other end
  FrameReader reader;
  PendingOutput pending;

  bool open() const noexcept { return serial != 0; }
};

struct ReadReport {
  std::size_t delivered = 0;
  ReadEnd end = ReadEnd::open;
  int error = 0;
  std::uint64_t announced = 0; // too_large: the length it announced
  bool more = false;           // stopped before the connection was found empty
};

// Marks the connection to be closed for `why` (the first reason stays).
void mark_broken(Connection& connection, ReadEnd why, int error) noexcept;

// Hands the sink every whole message the connection has, at most `budget`: what is buffered,
// then what one recv brings (another only when that one filled the buffer, so a connection
// that has just been emptied costs no further system call).
// `wait`: when nothing is buffered, the first recv blocks (a descriptor in blocking mode,
// bounded by its SO_RCVTIMEO), so a receiver's wait is one system call, as a blocking
// program's is.
ReadReport read_frames(Connection& connection, MessageSink& sink, PeerHandle sender,
                       std::size_t budget, bool wait = false) noexcept;

// The same for kernel records, one record a call (`more` then says that the connection may
// have another): one recv into `buffer`, shared by every connection (each record arrives
// whole, so nothing is kept between reads); a record longer than `buffer` is too_large.
ReadReport read_records(Connection& connection, std::span<std::byte> buffer, MessageSink& sink,
                        PeerHandle sender, std::size_t budget, bool wait = false) noexcept;

enum class WriteOutcome {
  written, // the kernel took it all
  queued,  // it waits in the connection's pending output, behind what was there
  blocked, // not taken: the connection is full (nothing of the message went out)
  failed   // not taken: the connection broke (marked broken), or the message is too long
};

// Writes one message. What the kernel does not take at once is queued when part of it went
// out already (a stream cannot take the rest of a frame back), when the connection has
// output pending (the message goes behind it, if there is room), or when `may_queue` says
// that the message counts as sent already (another connection took it).
WriteOutcome write_message(Connection& connection, std::span<const std::byte> message,
                           Framing framing, bool may_queue) noexcept;

// Closes a connection without resetting it. Closing with unread bytes makes the kernel reset
// the connection (tcp and Unix sockets alike), and the peer then counts a socket error for an
// end that was clean. So this says it is done (FIN), sends nothing more, and reads and drops
// what still comes until the peer closes its end too, or `limit` passes.
void close_after_peer(transport_common::UniqueFd fd, Nanoseconds limit) noexcept;

} // namespace netprof::stream
