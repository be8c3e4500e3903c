// A ping-pong publisher on a transport that delivers on a thread of its own (a DDS listener)
// sends its next probe from that delivery, as ddsperf's ping answers in its listener, and its
// own thread stays asleep; a relay the transport pushes back is retried by that thread.

#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using namespace netprof;
using namespace netprof::testing;

// The publisher's side of the link, delivering as a DDS listener does: inside one receive(),
// message after message, asking the sink after each whether to return to the thread that
// waits (MessageSink::wants_control), and pushing back every `push_back_every`-th measured
// data message (0: none).
class ListeningEndpoint final : public Endpoint {
public:
  ListeningEndpoint(InMemoryEndpoint& inner, std::uint64_t push_back_every)
      : m_inner(inner), m_push_back_every(push_back_every)
  {
  }

  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    wire::Header header;
    if (m_push_back_every > 0 && wire::decode_header(message, header) == wire::DecodeError::none &&
        header.kind == wire::MessageKind::data && (header.flags & wire::flags::warmup) == 0 &&
        header.sequence % m_push_back_every == 1 && header.sequence != m_pushed_back) {
      m_pushed_back = header.sequence; // once per message: its retry goes through
      return {SendResult::back_pressured, SendCause::queue_full};
    }
    return m_inner.send(message);
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    const auto deadline = Clock::now() + timeout;
    ReceiveResult result = ReceiveResult::timed_out;
    for (auto now = Clock::now(); now < deadline; now = Clock::now()) {
      const ReceiveResult got = m_inner.receive(sink, deadline - now);
      if (got != ReceiveResult::received)
        return got == ReceiveResult::failed ? got : result;
      result = got;
      if (sink.wants_control()) {
        ++wakes;
        break;
      }
    }
    return result;
  }

  EndpointFacts facts() const override { return m_inner.facts(); }

  std::uint64_t wakes = 0; // receive() returned because the sink wanted its thread

private:
  InMemoryEndpoint& m_inner;
  const std::uint64_t m_push_back_every;
  std::uint64_t m_pushed_back = ~std::uint64_t{0};
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
  ListeningEndpoint publisher_end(link.publisher, push_back_every);
  PairOutcome outcome =
      run_pair(publisher_end, link.subscriber, publisher, ping_pong(Role::subscriber));
  return {std::move(outcome), publisher_end.wakes};
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
  ListeningEndpoint publisher_end(link.publisher, 0);
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
