#pragma once

// What a stream transport (tcp, uds) tells the shared endpoint about its own sockets: how a
// subscriber connects, what every connection needs before its first byte, and how the report
// names each end. The endpoint does the rest (stream_endpoint.hpp).

#include "common/socket_buffers.hpp"
#include "common/unique_fd.hpp"

#include <string>
#include <vector>

namespace netprof::stream {

class StreamSockets {
public:
  // Holds what it bound (a listening socket's file, its buffers' sizes): never copied.
  StreamSockets() = default;
  StreamSockets(const StreamSockets&) = delete;
  StreamSockets& operator=(const StreamSockets&) = delete;
  virtual ~StreamSockets() = default;

  // Publisher: its listening socket, bound and listening, non-blocking. Throws TransportError
  // naming the address when the system refuses.
  virtual transport_common::UniqueFd listen() = 0;

  // Subscriber: a non-blocking socket whose connect to the publisher has started (it may
  // still be in progress) or finished; an invalid one, with `error` set to the errno, when
  // connect failed at once (nobody listening yet). Sets the socket buffers as -q asks and
  // records what was granted. Never throws.
  virtual transport_common::UniqueFd dial(int& error) noexcept = 0;

  // Every connection, accepted or dialled, before it carries a byte (TCP_NODELAY for tcp).
  virtual void prepare(int /*fd*/) noexcept {}

  // How the report names the other end of a connection (tcp: its address; uds: its process).
  virtual std::string describe_peer(int fd) const = 0;
  // A subscriber's own end, once connected.
  virtual std::string describe_own_end(int fd) const = 0;
  // What to say when dialling failed with `error`, after the errno's own words: a hint that
  // names what to check ("is the publisher listening at ...?").
  virtual std::string dial_hint(int error) const = 0;

  // The buffers of the last socket made (the listener, or the last one dialled).
  const transport_common::BufferSizes& buffers() const noexcept { return m_buffers; }
  // What listen() found and did, for the report.
  const std::vector<std::string>& notes() const noexcept { return m_notes; }

protected:
  transport_common::BufferSizes m_buffers;
  std::vector<std::string> m_notes;
};

} // namespace netprof::stream
