#pragma once

// Two endpoints joined in memory, for testing the core's protocol logic without sockets.
// Not a stand-in for a transport under measurement: no figure from it is a benchmark.
// The link can drop, duplicate or inject messages on the publisher-to-subscriber direction,
// so loss and rejection accounting can be checked exactly.

#include <netprof/transport.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace netprof::testing {

class MessageQueue {
public:
  void push(std::span<const std::byte> message)
  {
    {
      std::lock_guard lock(m_mutex);
      m_messages.emplace_back(message.begin(), message.end());
    }
    m_ready.notify_one();
  }

  bool pop(std::vector<std::byte>& out, Nanoseconds timeout)
  {
    std::unique_lock lock(m_mutex);
    if (!m_ready.wait_for(lock, timeout, [&] { return !m_messages.empty(); }))
      return false;
    out = std::move(m_messages.front());
    m_messages.pop_front();
    return true;
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<std::vector<std::byte>> m_messages;
};

// Decides what happens to each publisher-to-subscriber message: how many copies arrive.
using Forwarding = std::function<int(std::span<const std::byte>)>;

class InMemoryEndpoint final : public Endpoint {
public:
  InMemoryEndpoint(std::shared_ptr<MessageQueue> inbox,
                   std::vector<std::shared_ptr<MessageQueue>> outboxes, Forwarding forwarding)
      : m_inbox(std::move(inbox)), m_outboxes(std::move(outboxes)),
        m_forwarding(std::move(forwarding))
  {
  }

  // Every message goes to every outbox: nobody to adopt (Endpoint::reply's default).
  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    const int copies = m_forwarding ? m_forwarding(message) : 1;
    for (const auto& outbox : m_outboxes)
      for (int i = 0; i < copies; ++i)
        outbox->push(message);
    return {};
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    if (!m_inbox->pop(m_buffer, timeout))
      return ReceiveResult::timed_out;
    sink.on_message(Delivery{m_buffer, 1, m_buffer.size(), PeerHandle{}});
    return ReceiveResult::received;
  }

  EndpointFacts facts() const override
  {
    EndpointFacts facts;
    facts.transport = "in-memory";
    facts.max_message_size = 1 << 20;
    return facts;
  }

private:
  std::shared_ptr<MessageQueue> m_inbox;
  std::vector<std::shared_ptr<MessageQueue>> m_outboxes;
  Forwarding m_forwarding;
  std::vector<std::byte> m_buffer;
};

// One publisher, one subscriber: what most tests need.
struct InMemoryLink {
  explicit InMemoryLink(Forwarding publisher_to_subscriber = {})
      : to_subscriber(std::make_shared<MessageQueue>()),
        to_publisher(std::make_shared<MessageQueue>()),
        publisher(to_publisher, {to_subscriber}, std::move(publisher_to_subscriber)),
        subscriber(to_subscriber, {to_publisher}, {})
  {
  }

  std::shared_ptr<MessageQueue> to_subscriber;
  std::shared_ptr<MessageQueue> to_publisher;
  InMemoryEndpoint publisher;
  InMemoryEndpoint subscriber;
};

// One publisher fanning out to several subscribers, each with its own inbox.
struct InMemoryFanOut {
  explicit InMemoryFanOut(std::size_t subscriber_count)
      : to_publisher(std::make_shared<MessageQueue>())
  {
    std::vector<std::shared_ptr<MessageQueue>> inboxes;
    for (std::size_t i = 0; i < subscriber_count; ++i) {
      inboxes.push_back(std::make_shared<MessageQueue>());
      subscribers.push_back(std::make_unique<InMemoryEndpoint>(
          inboxes.back(), std::vector{to_publisher}, Forwarding{}));
    }
    publisher = std::make_unique<InMemoryEndpoint>(to_publisher, inboxes, Forwarding{});
  }

  std::shared_ptr<MessageQueue> to_publisher;
  std::unique_ptr<InMemoryEndpoint> publisher;
  std::vector<std::unique_ptr<InMemoryEndpoint>> subscribers;
};

} // namespace netprof::testing
