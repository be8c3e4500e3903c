#pragma once

// One NNG socket of one protocol, owned: its options, where it listens or dials, and a count of
// its connections (pipes) kept by NNG's pipe callbacks, so that a send with nobody connected
// is told apart from one that is back-pressured.

#include "nng_address.hpp"

#include "common/socket_file.hpp"

#include <nng/nng.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
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

  // Connections beyond `most` are closed as they arrive (pair, push/pull: one subscriber).
  void accept_at_most(std::size_t most) noexcept { m_most_pipes = most; }

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

  nng_socket m_socket = NNG_SOCKET_INITIALIZER;
  std::size_t m_most_pipes = 0; // 0: no limit
  // The pipes admitted and not yet removed, by id: NNG reports the removal of a pipe closed
  // at admission too, which must not be counted off.
  std::mutex m_admitted_mutex;
  std::vector<std::uint32_t> m_admitted;
  std::atomic<std::size_t> m_pipes{0};
  std::atomic<std::size_t> m_peak_pipes{0};
  std::atomic<std::size_t> m_refused_pipes{0};
  std::atomic<std::uint32_t> m_latest_pipe{0};
  std::string m_own_file; // the ipc:// file this socket listens at, removed at close
  transport_common::FileIdentity m_own_file_identity;
};

} // namespace netprof::nng_parts
