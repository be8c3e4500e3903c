// A ping-pong publisher on a transport that delivers on a thread of its own (a DDS listener)
// sends its next probe from that delivery, as ddsperf's ping answers in its listener, and its
// own thread stays asleep; a relay the transport pushes back is retried by that thread.

#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace netprof;
using namespace netprof::testing;

// The publisher's side of the link, delivering as a DDS listener does: a thread of its own takes
// each message from the link and, only while the publisher's thread waits inside receive()
// (lending its sink, as SinkHandover does for DDS), hands it to the sink, then asks the sink
// whether to end that wait (MessageSink::wants_control). Every `push_back_every`-th measured
// data message (0: none) is refused once, as pushed back, or as failed with `fail`. The hand-over
// is a mutex here: ThreadSanitizer (scripts/setup/sanitize.sh runs this suite) sees the publisher's
// state passed between the two threads, and any touch of it outside the lending.
class ListeningEndpoint final : public Endpoint {
public:
  ListeningEndpoint(InMemoryLink& link, std::uint64_t push_back_every, bool fail = false)
      : m_inbox(link.to_publisher), m_outbox(link.publisher), m_push_back_every(push_back_every),
        m_refusal(fail ? SendResult::failed : SendResult::back_pressured),
        m_listener([this] { listen(); })
  {
  }
  ~ListeningEndpoint() override
  {
    {
      std::lock_guard lock(m_mutex);
      m_stopping = true;
    }
    m_changed.notify_all();
    m_listener.join();
  }

  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    wire::Header header;
    if (m_push_back_every > 0 && wire::decode_header(message, header) == wire::DecodeError::none &&
        header.kind == wire::MessageKind::data && (header.flags & wire::flags::warmup) == 0 &&
        header.sequence % m_push_back_every == 1 && header.sequence != m_pushed_back) {
      m_pushed_back = header.sequence; // once per message: its retry goes through
      return {m_refusal,
              m_refusal == SendResult::failed ? SendCause::error : SendCause::queue_full};
    }
    return m_outbox.send(message);
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    std::unique_lock lock(m_mutex);
    m_lent = &sink;
    m_delivered = m_woken = false;
    m_changed.notify_all();
    m_changed.wait_for(lock, timeout, [&] { return m_woken; });
    m_lent = nullptr;
    return m_delivered ? ReceiveResult::received : ReceiveResult::timed_out;
  }

  EndpointFacts facts() const override { return m_outbox.facts(); }

  // How often a receive() returned because the sink wanted its thread.
  std::uint64_t wakes()
  {
    std::lock_guard lock(m_mutex);
    return m_wakes;
  }

private:
  void listen()
  {
    std::vector<std::byte> message;
    for (;;) {
      const bool got = m_inbox->pop(message, std::chrono::milliseconds(5));
      std::unique_lock lock(m_mutex);
      // A message waits for the publisher's next wait, as a DDS sample waits in the reader.
      m_changed.wait(lock, [&] { return m_stopping || !got || m_lent != nullptr; });
      if (m_stopping)
        return;
      if (!got)
        continue;
      m_lent->on_message(Delivery{message, 1, message.size(), PeerHandle{}});
      m_delivered = true;
      if (m_lent->wants_control()) {
        ++m_wakes;
        m_woken = true;
        m_lent = nullptr; // until its thread lends the sink again
        m_changed.notify_all();
      }
    }
  }

  std::shared_ptr<MessageQueue> m_inbox;
  InMemoryEndpoint& m_outbox;
  const std::uint64_t m_push_back_every;
  const SendResult m_refusal;
  std::uint64_t m_pushed_back = ~std::uint64_t{0};
  std::mutex m_mutex;
  std::condition_variable m_changed;
  MessageSink* m_lent = nullptr;
  bool m_delivered = false;
  bool m_woken = false;
  bool m_stopping = false;
  std::uint64_t m_wakes = 0;
  std::thread m_listener; // last: it starts on members already built
};

RunConfig ping_pong(Role role)
{
  RunConfig config = counted_config(role, 300, 10);
  config.mode = Mode::ping_pong;
  return config;
}

struct Relayed {
  PairOutcome outcome;
  std::uint64_t wakes;
};

Relayed run_listening(const RunConfig& publisher, std::uint64_t push_back_every = 0)
{
  InMemoryLink link;
  ListeningEndpoint publisher_end(link, push_back_every);
  PairOutcome outcome =
      run_pair(publisher_end, link.subscriber, publisher, ping_pong(Role::subscriber));
  return {std::move(outcome), publisher_end.wakes()};
}

TEST(RelayedProbes, EachAnsweredProbeIsFollowedFromTheDeliveringThread)
{
  const auto [outcome, wakes] = run_listening(ping_pong(Role::publisher));

  const RunReport& report = outcome.publisher.report;
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(report.probes_sent, 300u);
  EXPECT_EQ(report.echoes_received, 300u);
  // The measured phase's first probe goes out from the publisher's own thread, which the warm-up
  // woke at its end; every other one the moment its predecessor's echo was delivered.
  EXPECT_EQ(report.probes_relayed, 299u);
  // Woken for the hellos, the ends of both phases and the final counters, not per round trip.
  EXPECT_LT(wakes, 30u);
}

TEST(RelayedProbes, ARelayPushedBackIsRetriedByThePublishersThread)
{
  const auto [outcome, wakes] = run_listening(ping_pong(Role::publisher), 10);

  const RunReport& report = outcome.publisher.report;
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(report.probes_sent, 300u);
  EXPECT_EQ(report.echoes_received, 300u);
  EXPECT_EQ(report.subscribers.at(0).counters.received, 300u);
  // Sequences 1, 11, ..., 291 were pushed back once each, and their own thread sent them.
  EXPECT_EQ(report.send_accounting.pushed_back, 30u);
  EXPECT_EQ(report.probes_relayed, 299u - 30u);
  EXPECT_GE(wakes, 30u);
}

TEST(RelayedProbes, ARelayedSendThatFailsEndsTheRunAsTheThreadsOwnWould)
{
  // Only the first attempt at sequence 1 fails: a retry by the publisher's thread would send it.
  InMemoryLink link;
  ListeningEndpoint publisher_end(link, 1000, true);
  const PairOutcome outcome = run_pair(publisher_end, link.subscriber, ping_pong(Role::publisher),
                                       ping_pong(Role::subscriber));

  const RunReport& report = outcome.publisher.report;
  EXPECT_NE(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(report.probes_sent, 1u);
  EXPECT_EQ(report.send_accounting.failed, 1u);
}

TEST(RelayedProbes, APacedPingPongKeepsItsScheduleOnItsOwnThread)
{
  RunConfig publisher = ping_pong(Role::publisher);
  publisher.count = 40;
  publisher.send_hz = 2000;
  const auto [outcome, wakes] = run_listening(publisher);

  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(outcome.publisher.report.echoes_received, 40u);
  EXPECT_EQ(outcome.publisher.report.probes_relayed, 0u);
}

TEST(RelayedProbes, ATimedPhaseEndsOnTimeWhenEveryProbeIsRelayed)
{
  RunConfig publisher = ping_pong(Role::publisher);
  publisher.count.reset();
  publisher.test_seconds = 0.3;
  RunConfig subscriber = ping_pong(Role::subscriber);
  subscriber.count.reset();
  InMemoryLink link;
  ListeningEndpoint publisher_end(link, 0);
  const auto started = Clock::now();
  const PairOutcome outcome = run_pair(publisher_end, link.subscriber, publisher, subscriber);

  const RunReport& report = outcome.publisher.report;
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  ASSERT_GT(report.probes_sent, 10u);
  EXPECT_EQ(report.probes_relayed, report.probes_sent - 1);
  EXPECT_EQ(report.echoes_received, report.probes_sent);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(4));
}

TEST(RelayedProbes, AnEndpointThatReceivesOnTheCallersThreadRelaysNothing)
{
  InMemoryLink link;
  const PairOutcome outcome =
      run_pair(link, ping_pong(Role::publisher), ping_pong(Role::subscriber));

  EXPECT_EQ(outcome.publisher.report.echoes_received, 300u);
  EXPECT_EQ(outcome.publisher.report.probes_relayed, 0u);
}

} // namespace
