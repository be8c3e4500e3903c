#pragma once

// An endpoint that can be cut off for good, as a SIGKILL would cut off a process: after
// sever(), nothing it sends arrives anywhere and nothing reaches it. The role running on it
// can then be stopped without its goodbyes (departing counters, END) being heard.

#include <netprof/transport.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

namespace netprof::testing {

class SeverableEndpoint final : public Endpoint {
public:
  explicit SeverableEndpoint(Endpoint& inner) : m_inner(inner) {}

  void sever() noexcept { m_severed.store(true); }

  SendResult send(std::span<const std::byte> message) noexcept override
  {
    return m_severed.load() ? SendResult::sent : m_inner.send(message);
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    if (!m_severed.load())
      return m_inner.receive(sink, timeout);
    std::this_thread::sleep_for(std::min<Nanoseconds>(timeout, std::chrono::milliseconds(5)));
    return ReceiveResult::timed_out;
  }

  SendResult send_announced(std::span<const std::byte> message) noexcept override
  {
    return m_severed.load() ? SendResult::sent : m_inner.send_announced(message);
  }

  bool adopt_peer(PeerHandle sender) noexcept override { return m_inner.adopt_peer(sender); }
  void announce_payload(std::span<const std::byte> payload) override
  {
    m_inner.announce_payload(payload);
  }
  Capabilities capabilities() const noexcept override { return m_inner.capabilities(); }
  EndpointFacts facts() const override { return m_inner.facts(); }

private:
  Endpoint& m_inner;
  std::atomic<bool> m_severed{false};
};

} // namespace netprof::testing
