// A subscriber whose back channel is full: its echoes are held and sent, as a blocking
// program's would be, and one it cannot send is not counted as echoed.

#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <functional>

namespace {

using namespace netprof;
using netprof::testing::InMemoryEndpoint;
using netprof::testing::InMemoryLink;
using namespace netprof::testing;

// Whether the echo of this measured probe is refused as back-pressured at this attempt
// (0 for the first try).
using PushBack = std::function<bool(std::uint64_t sequence, int attempt)>;

// The subscriber's side of the link, pushing back some of its echoes as a full queue does.
class PushingBackEndpoint final : public Endpoint {
public:
  PushingBackEndpoint(InMemoryEndpoint& inner, PushBack push_back)
      : m_inner(inner), m_push_back(std::move(push_back))
  {
  }

  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    wire::Header header;
    if (wire::decode_header(message, header) == wire::DecodeError::none &&
        header.kind == wire::MessageKind::echo && (header.flags & wire::flags::warmup) == 0) {
      m_attempt = header.sequence == m_sequence ? m_attempt + 1 : 0;
      m_sequence = header.sequence;
      if (m_push_back(header.sequence, m_attempt))
        return {SendResult::back_pressured, SendCause::queue_full};
    }
    return m_inner.send(message);
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    return m_inner.receive(sink, timeout);
  }

  EndpointFacts facts() const override { return m_inner.facts(); }

private:
  InMemoryEndpoint& m_inner;
  PushBack m_push_back;
  std::uint64_t m_sequence = ~std::uint64_t{0};
  int m_attempt = 0;
};

PairOutcome run_with(PushBack push_back)
{
  InMemoryLink link;
  PushingBackEndpoint subscriber_end(link.subscriber, std::move(push_back));
  return run_pair(link.publisher, subscriber_end, counted_config(Role::publisher, 200, 5),
                  counted_config(Role::subscriber, 200, 5));
}

TEST(EchoBackPressure, AnEchoPushedBackIsHeldAndSentNotDropped)
{
  const auto outcome = run_with([](std::uint64_t, int attempt) { return attempt < 3; });

  const RunReport& report = outcome.publisher.report;
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  ASSERT_GT(report.probes_sent, 0u);
  EXPECT_EQ(report.echoes_received, report.probes_sent);
  ASSERT_EQ(report.subscribers.size(), 1u);
  EXPECT_EQ(report.subscribers[0].counters.probes_echoed, report.probes_sent);
}

TEST(EchoBackPressure, AnEchoTheBackChannelNeverTakesIsNotCountedAsEchoed)
{
  // The first measured probe's echo meets a back channel that stays full.
  std::uint64_t refused = ~std::uint64_t{0};
  const auto outcome = run_with([&](std::uint64_t sequence, int) {
    if (refused == ~std::uint64_t{0})
      refused = sequence;
    return sequence == refused;
  });

  const RunReport& report = outcome.publisher.report;
  ASSERT_GT(report.probes_sent, 1u);
  EXPECT_EQ(report.echoes_received, report.probes_sent - 1);
  ASSERT_EQ(report.subscribers.size(), 1u);
  EXPECT_EQ(report.subscribers[0].counters.probes_echoed, report.probes_sent - 1);
  ASSERT_TRUE(outcome.subscriber.report.self.has_value());
  EXPECT_EQ(outcome.subscriber.report.self->counters.probes_echoed, report.probes_sent - 1);
  EXPECT_EQ(outcome.subscriber.report.self->counters.received, report.messages_sent);
}

} // namespace
