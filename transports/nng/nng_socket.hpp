#pragma once

// One NNG socket of one protocol, owned: its options, where it listens or dials, and a count of
// its connections (pipes) kept by NNG's pipe callbacks, so that a send with nobody connected
// is told apart from one that is back-pressured.

#include "nng_address.hpp"

#include "common/socket_file.hpp"

#include <nng/nng.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace netprof::nng_parts {

enum class Protocol { pub0, sub0, push0, pull0, pair0 };

const char* protocol_name(Protocol protocol) noexcept;

class NngSocket {
public:
  // Opens the socket; throws TransportError.
  explicit NngSocket(Protocol protocol);
  ~NngSocket();

  NngSocket(const NngSocket&) = delete;
  NngSocket& operator=(const NngSocket&) = delete;

  // Before listen() or dial(): NNG gives each new connection the socket's values.
  // receive_limit: the largest message read (NNG_OPT_RECVMAXSZ); a larger one closes the
  // connection that sent it. queue_messages: NNG_OPT_SENDBUF and NNG_OPT_RECVBUF.
  void configure(std::size_t receive_limit, int queue_messages);

  // Connections beyond `most` are closed as they arrive (pair, push/pull: one subscriber),
  // unless one holding a place has not been proven for unproven_hold: that one is closed
  // instead, so a stranger that dials first cannot keep the subscriber out.
  void accept_at_most(std::size_t most) noexcept { m_most_pipes = most; }
  // Long enough for a subscriber's handshake (a round trip, a hello resent) on a loaded host;
  // short beside --wait, which the subscriber keeps dialling through.
  static constexpr std::chrono::milliseconds unproven_hold{1000};
  // The core proved who speaks over `pipe` (its address check, its MAC): it keeps its place.
  void prove(std::uint32_t pipe) noexcept;
  // Every connection that holds a place now is proven: push/pull's data connection, through
  // which the challenge went whose answer came back over the other socket.
  void prove_holders() noexcept;
  // Connections closed to give their place to a newer one, never having been proven.
  std::size_t evicted_connections() const noexcept
  {
    return m_evicted_pipes.load(std::memory_order_relaxed);
  }

  // Listens; an ipc:// file is made 0600, and a stale one (nobody listening) replaced as for
  // ZeroMQ's ipc://. Throws TransportError. True when a stale file was removed.
  bool listen(const NngAddress& address);

  // Dials; when nobody listens yet, NNG keeps dialling in the background, so a subscriber may
  // start before its publisher. Throws TransportError for anything else.
  void dial(const NngAddress& address);

  nng_socket handle() const noexcept { return m_socket; }
  std::size_t connections() const noexcept { return m_pipes.load(std::memory_order_relaxed); }
  std::size_t peak_connections() const noexcept
  {
    return m_peak_pipes.load(std::memory_order_relaxed);
  }
  std::size_t refused_connections() const noexcept
  {
    return m_refused_pipes.load(std::memory_order_relaxed);
  }
  // The local address of the latest connection ("" before any): a dialer's own side.
  std::string latest_local_address() const;

private:
  static void on_pipe_event(nng_pipe pipe, nng_pipe_ev event, void* self) noexcept;
  void discard_what_streams_in() noexcept;

  nng_socket m_socket = NNG_SOCKET_INITIALIZER;
  std::size_t m_most_pipes = 0; // 0: no limit
  struct Admitted {
    std::uint32_t id = 0;
    std::chrono::steady_clock::time_point since{};
    bool proven = false;
  };
  // Under m_admitted_mutex: a place to give to `pipe`, closing an unproven holder when full;
  // the pipe to close (0: none), or nullopt when `pipe` itself is refused.
  std::optional<std::uint32_t> make_room_for(std::uint32_t pipe) noexcept;

  // The pipes admitted and not yet removed: NNG reports the removal of a pipe closed at
  // admission too, which must not be counted off.
  std::mutex m_admitted_mutex;
  std::vector<Admitted> m_admitted;
  std::atomic<std::size_t> m_evicted_pipes{0};
  std::atomic<std::size_t> m_pipes{0};
  std::atomic<std::size_t> m_peak_pipes{0};
  std::atomic<std::size_t> m_refused_pipes{0};
  std::atomic<std::uint32_t> m_latest_pipe{0};
  std::string m_own_file; // the ipc:// file this socket listens at, removed at close
  transport_common::FileIdentity m_own_file_identity;
};

// Destroys `socket` (nng_close), waiting at most `limit`. NNG 1.5.2's nng_close can wait
// forever for a pipe that is closing as its peer leaves (seen about once in ten subscriber exits
// on a loaded 2-core host), which would keep a finished netprof from exiting. When it does, the
// socket is left to a thread of its own, alive until the process exits (its callbacks still
// find it), and the function returns false.
bool close_within(std::unique_ptr<NngSocket> socket, std::chrono::milliseconds limit) noexcept;

} // namespace netprof::nng_parts
