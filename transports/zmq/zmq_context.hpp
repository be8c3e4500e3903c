#pragma once

#include <zmq.hpp>

#include <memory>
#include <mutex>
#include <vector>

namespace netprof::zeromq {

// The ZeroMQ context an endpoint's socket lives in, with whatever must outlive it. Normally an
// endpoint's own. inproc:// joins sockets of one context only, so every endpoint of this
// process with an inproc:// address shares one (--local-pair --threads: the publisher's thread
// and the subscriber's), made by the first of them and ended with the last.
class ZmqContext {
public:
  explicit ZmqContext(int io_threads) : m_context(io_threads) {}
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;

  static std::shared_ptr<ZmqContext> own(int io_threads);
  // The process's context for inproc://; `io_threads` counts only for the first.
  static std::shared_ptr<ZmqContext> shared_in_process(int io_threads);

  zmq::context_t& context() noexcept { return m_context; }

  // Keeps `object` until the context has ended. Buffers lent to ZeroMQ come back from its I/O
  // threads until then; over inproc:// a peer socket of the same context holds them, which
  // may outlive the lender's endpoint.
  void keep_until_ended(std::shared_ptr<void> object);

private:
  std::mutex m_mutex;
  std::vector<std::shared_ptr<void>> m_kept; // declared before the context: destroyed after it
  zmq::context_t m_context;
};

} // namespace netprof::zeromq
