#pragma once

// The two ends of the mq transport (docs/transport-mq.md). A POSIX queue hands each message to
// one reader, so every reader owns its queue: the publisher creates /netprof-NAME, which all
// its subscribers write their hellos, echoes and final counters to (each framed with its id,
// back_frame.hpp); each subscriber creates /netprof-NAME:ID, to which only the publisher
// writes, a copy of every message per subscriber. A subscriber's id is its address: the
// publisher answers and adopts it by opening that queue.

#include "kernel_limits.hpp"
#include "owned_queue.hpp"
#include "peer_queue.hpp"
#include "queue_names.hpp"

#include "common/timed_poll.hpp"

#include <netprof/transport.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace netprof::mq {

struct EndpointSettings {
  std::string name;       // --mq NAME
  std::size_t depth = 0;  // --mq-depth, checked against the limits
  std::string depth_note; // how the depth was chosen
  KernelLimits limits;
  std::size_t requested_bytes = 0; // -q as given, reported, not used
};

// Every queue message netprof sends to a subscriber is at most this: fs.mqueue.msgsize_max,
// which each subscriber also sizes its queue to, so any publisher's messages fit any
// subscriber's queue without the two agreeing on -s first.
inline std::size_t data_message_limit(const KernelLimits& limits) noexcept
{
  return limits.msgsize_max;
}

// What both ends tell the report.
std::string size_hint(const KernelLimits& limits);
void add_common_notes(EndpointFacts& facts, const EndpointSettings& settings,
                      const OwnedQueue& own);

class PublisherEndpoint final : public Endpoint, public PeerSender {
public:
  // Creates /netprof-NAME for messages up to `largest_control_message` (all that subscribers
  // send; 0: any size the kernel allows), and removes queues killed subscribers of this NAME
  // left. Throws TransportError.
  PublisherEndpoint(EndpointSettings settings, std::size_t largest_control_message);
  ~PublisherEndpoint() override; // closes the subscribers' queues (OwnedQueue: not copyable)

  // Keep-all: a message goes to every subscriber's queue or to none, so the publisher waits
  // for the slowest live subscriber, as over shm --shm-history keep-all. A queue that is full
  // while others take the message is owed it: the next send or flush delivers it first, and
  // until then every send is back-pressured.
  SendOutcome send(std::span<const std::byte> message) noexcept override;
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  // A subscriber is answered, and adopted, through its own queue, opened by its id.
  ReplyOutcome reply(PeerHandle sender, std::span<const std::byte> message,
                     PeerFate fate) noexcept override;
  EndpointFacts facts() const override;
  // To one subscriber's queue alone (--fanout round-robin); a full one pushes back, as send()
  // does, after the owed message (if any) went out.
  SendOutcome send_to(PeerHandle peer, std::span<const std::byte> message) noexcept override;

  static constexpr std::size_t peer_capacity = 1024; // --subscribers' own limit

private:
  struct Peer {
    std::uint32_t id = 0;
    int fd = -1;
    QueueIdentity identity;
    bool owed = false; // its queue was full when the others took the last message
  };
  // What became of the last subscriber queue that was not used, for the report.
  struct Refusal {
    std::uint32_t id = 0;
    PeerQueue queue;
    bool too_small = false;
  };

  bool deliver(std::span<const std::byte> frame, unsigned priority, MessageSink& sink) noexcept;
  // A subscriber's queue, open and checked (owner, message size), or its refusal recorded.
  PeerQueue open_subscriber_queue(std::uint32_t id) noexcept;
  // Sends the owed message to the queues that lack it; true once none does.
  bool pay_owed() noexcept;
  SendOutcome pushed_back() noexcept;
  bool adopt(PeerHandle sender) noexcept; // keeps its queue open: it gets every message
  SendOutcome answer_alone(PeerHandle sender, std::span<const std::byte> message) noexcept;
  void drop_peer(std::size_t index) noexcept;
  // Whether a look for full queues nobody holds is due (at most one per reap_interval).
  bool reap_due() noexcept;
  // A full queue that no live process holds would never drain: its subscriber is gone, and is
  // dropped (true).
  bool drop_if_unheld(std::size_t index) noexcept;

  EndpointSettings m_settings;
  OwnedQueue m_queue;
  std::vector<std::byte> m_buffer;
  transport_common::TimedPoll m_wait; // ends receive()'s short waits
  std::vector<Peer> m_peers;          // peer_capacity entries, the first m_peer_count in use
  std::size_t m_peer_count = 0;
  SubscriberQueueName m_peer_names;
  std::size_t m_max_message = 0;
  std::vector<std::byte> m_owed_message; // m_max_message bytes
  std::size_t m_owed_size = 0;
  bool m_owed = false;
  std::vector<std::string> m_removed; // queues of killed subscribers removed at start
  Clock::time_point m_next_reap{};
  std::uint64_t m_dead_peers = 0;
  std::uint64_t m_strangers = 0; // frames that were not netprof's, or sent with a priority
  std::uint64_t m_refusals = 0;
  std::uint64_t m_ignored_peers = 0;
  Refusal m_last_refusal;
};

class SubscriberEndpoint final : public Endpoint {
public:
  // Creates /netprof-NAME:ID and opens the publisher's queue if it is there already (if not,
  // every send tries again). Throws TransportError, also for a publisher's queue that is not
  // to be used; one found later makes receive() fail.
  SubscriberEndpoint(EndpointSettings settings, std::uint32_t id);
  ~SubscriberEndpoint() override; // closes the publisher's queue

  // One publisher, and only its queue to write to: nobody to adopt.
  SendOutcome send(std::span<const std::byte> message) noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

private:
  // Opens the publisher's queue, or the queue now under its name (a publisher restarted);
  // closes ours when the name is gone. False once the name holds a queue not to be used.
  bool refresh_publisher() noexcept;
  bool housekeeping() noexcept;
  bool gave_up() noexcept;
  void close_publisher() noexcept;

  EndpointSettings m_settings;
  std::uint32_t m_id;
  std::string m_publisher_name;
  OwnedQueue m_queue;
  std::vector<std::byte> m_buffer;
  transport_common::TimedPoll m_wait; // ends receive()'s short waits
  std::vector<std::byte> m_frame;
  int m_publisher = -1;
  QueueIdentity m_publisher_identity;
  std::size_t m_publisher_message_size = 0;
  std::size_t m_publisher_depth = 0;
  Clock::time_point m_next_check{};
  Clock::time_point m_next_pressure_check{};
  std::uint32_t m_idle_polls = 0;
  std::uint64_t m_attaches = 0;
  std::uint64_t m_strangers = 0;
  PeerQueue m_refused; // the publisher's name held a queue not to be used
  bool m_failed = false;
  bool m_announced = false;
};

} // namespace netprof::mq
