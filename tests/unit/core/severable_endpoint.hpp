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

  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    return m_severed.load() ? SendOutcome{} : m_inner.send(message);
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    if (!m_severed.load())
      return m_inner.receive(sink, timeout);
    std::this_thread::sleep_for(std::min<Nanoseconds>(timeout, std::chrono::milliseconds(5)));
    return ReceiveResult::timed_out;
  }

  ReplyOutcome reply(PeerHandle sender, std::span<const std::byte> message,
                     PeerFate fate) noexcept override
  {
    if (m_severed.load())
      return {SendOutcome{}, fate == PeerFate::adopt};
    return m_inner.reply(sender, message, fate);
  }

  EndpointFacts facts() const override { return m_inner.facts(); }

private:
  Endpoint& m_inner;
  std::atomic<bool> m_severed{false};
};

} // namespace netprof::testing
