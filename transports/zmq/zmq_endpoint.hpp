#pragma once

#include "zero_copy_pool.hpp"
#include "zmq_address.hpp"
#include "zmq_context.hpp"
#include "zmq_curve.hpp"

#include <netprof/transport.hpp>

#include <zmq.h>
#include <zmq.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof::zeromq {

// --zmq-pattern: what carries the data. pubsub: the XPUB/XSUB socket that carries everything
// else too. pushpull: a PUSH/PULL pair of its own (deal_address), which never drops: PUSH waits
// at the high-water mark, and deals each message to one PULL in turn.
enum class Pattern { pubsub, pushpull };

// What the transport derived from the command line for one endpoint.
struct EndpointSettings {
  Role role = Role::publisher;
  Pattern pattern = Pattern::pubsub;
  // pushpull publisher under --fanout round-robin: PUSH deals the data and END among every
  // subscriber, and the rest goes to all over the XPUB. Without it, its one subscriber gets
  // everything over PUSH, in order.
  bool round_robin = false;
  Address own;                        // bound
  std::vector<Address> peers;         // connected
  std::size_t queue_length_bytes = 0; // -q; 0 = ZeroMQ's and the kernel's defaults
  std::size_t message_bytes = 0;      // header + payload, the basis of the high-water mark
  std::size_t header_bytes = 0;       // the core's header in front of each payload
  // The largest control message (EndpointRequest::largest_control_message): where no data
  // arrives, a larger message closes the connection that sent it. 0: no such limit.
  std::size_t largest_control_message = 0;
  int io_threads = 1;
  bool no_drop = false;           // publisher: wait at the high-water mark instead of dropping
  int history_depth = 0;          // --history keep-last:N: the high-water mark; 0: from -q
  std::size_t zero_copy_from = 0; // publisher: payloads this large or larger go zero-copy; 0 never
  std::optional<CurveKeys> curve; // --zmq-curve: the publisher is the CURVE server, subscribers
                                  // its clients
};

// An XSUB sends any message upstream, but one whose first byte is 0 or 1 is taken for an
// (un)subscription by both ends. netprof's own messages start with 'N' (the wire magic), so
// only foreign bytes are affected: they go up behind this escape byte, as does a message that
// starts with the escape byte itself, and the publisher strips it.
inline constexpr unsigned char escape_byte = 2;

// ZeroMQ's own default high-water mark, used when -q is 0.
inline constexpr int default_high_water_mark = 1000;
// Fewer than this many queued messages would turn every burst into loss, whatever -q says.
inline constexpr int min_high_water_mark = 4;

// The rule that maps -q to a high-water mark in messages: each ZeroMQ queue (one per peer and
// direction) holds about -q bytes of messages, like the kernel buffers beside it.
int high_water_mark(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept;
// The one a run uses: --history keep-last:N's N when given, else -q's.
int high_water_mark(const EndpointSettings& settings) noexcept;

// One ZeroMQ socket that carries both directions. The publisher's is an XPUB: data goes out
// to every subscribed peer, and the back channel (hellos, echoes, final counters) comes in on
// the same connections. A subscriber's is an XSUB that subscribes to everything and sends its
// back channel upstream. A subscriber's subscription travels ahead of its first hello on the
// same connection, and the XPUB applies it before it hands the hello over, so by the time
// the publisher hears a subscriber it can no longer miss its data: ZeroMQ's slow joiner
// cannot cost the measured phase anything.
//
// --zmq-pattern pushpull adds a PUSH (publisher) and a PULL (subscriber) socket for the data:
// a subscriber reads both, its control messages first.
class ZmqEndpoint final : public Endpoint, public PayloadKeeper, public MessageDealer {
public:
  // The largest payload: with the core's header in front of it, the largest message send()
  // takes. What a socket reads is capped lower, at what its role reads (ZMQ_MAXMSGSIZE).
  static constexpr std::size_t max_payload_size = std::size_t{16} << 20;
  // Messages handed to the sink per receive(): enough to amortise the calls, few enough that
  // the core gets control back often.
  static constexpr int receive_batch = 32;
  // Buffers for zero-copy sends: a lent buffer comes back only once the I/O thread has
  // written its message, so as many as the high-water mark lets ZeroMQ queue (plus the one
  // being written and the one being sent), within a memory budget, and never fewer than a few.
  static constexpr std::size_t min_zero_copy_buffers = 4;
  static constexpr std::size_t zero_copy_memory_budget = std::size_t{256} << 20;
  static std::size_t zero_copy_buffers(int high_water_mark, std::size_t message_bytes) noexcept;

  // Opens, binds and connects; throws TransportError when the system refuses.
  explicit ZmqEndpoint(const EndpointSettings& settings);
  ~ZmqEndpoint() override;

  // A data message that ends with the kept payload goes through a buffer lent to ZeroMQ
  // (--zmq-zero-copy), or is copied when none is free. Back-pressured at the high-water mark
  // only under --zmq-nodrop: without it a PUB socket drops there in silence, which only the
  // subscribers' loss shows.
  SendOutcome send(std::span<const std::byte> message) noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  // The publisher may lend (--zmq-zero-copy); an XPUB reaches every subscriber by itself.
  EndpointFacts facts() const override;

  // Under --zmq-zero-copy, a publisher's payload at least that large fills its lent buffers.
  void keep_payload(std::span<const std::byte> payload) override;

  // pushpull: PUSH hands it to the next subscriber whose queue has room; pubsub (one
  // subscriber, as the contract tests deal): the XPUB, as send().
  SendOutcome deal(std::span<const std::byte> message) noexcept override;

private:
  // A socket this endpoint reads: the XPUB/XSUB, and a pushpull subscriber's PULL.
  struct Inbox {
    void* handle = nullptr;
    int wakeup_fd = -1; // ZMQ_FD: readable when the socket has something to look at
    // The last drain ended in EAGAIN, and nothing has called into the socket since (a send
    // may process its commands, and with them ZMQ_FD's signal).
    bool dry = false;
  };
  // What one drain did: how many messages went to the sink, and why it stopped.
  struct Drained {
    enum class End { batch_full, dry, interrupted, failed };
    int delivered = 0;
    End end = End::batch_full;
  };
  // Hands at most receive_batch messages waiting at `inbox` to the sink without blocking.
  Drained drain(Inbox& inbox, MessageSink& sink) noexcept;
  // Waits on every inbox's ZMQ_FD for up to the timeout (zero: just looks). True when one was
  // signalled (and is no longer dry); otherwise `result` says why not.
  bool wait_for_signal(Nanoseconds timeout, std::optional<Clock::time_point>& deadline,
                       ReceiveResult& result) noexcept;
  bool all_dry() const noexcept;
  // What a zmq send call's return value means to the core, with the cause of a refusal.
  SendOutcome outcome(int sent) noexcept;
  SendOutcome send_data(void* handle, std::span<const std::byte> message) noexcept;
  bool ends_with_kept_payload(std::span<const std::byte> message) const noexcept;
  int send_escaped(std::span<const std::byte> message) noexcept;
  // A data message through a buffer lent to ZeroMQ, or copied when none is free.
  int send_lent(void* handle, std::span<const std::byte> message) noexcept;
  void configure(const EndpointSettings& settings);
  // pushpull: the PUSH or PULL socket, bound and connected where the main one is.
  void open_deal_socket(const EndpointSettings& settings);
  // What both sockets share: high-water marks, linger, CURVE, IPv6.
  void apply_common_options(zmq::socket_t& socket, const EndpointSettings& settings);
  void pattern_notes(const EndpointSettings& settings);
  // What each endpoint reads at most (ZMQ_MAXMSGSIZE, taken by an endpoint when it is bound
  // or connected), and the note saying so.
  void limit_what_it_reads(const EndpointSettings& settings);
  // Connects `socket` to each peer, or binds it at `own`; each reads at most `limit` bytes.
  void connect_peers(zmq::socket_t& socket, const std::vector<Address>& peers, std::size_t limit);
  void bind_own(zmq::socket_t& socket, const Address& own, std::size_t limit);
  void size_buffers(const EndpointSettings& settings);
  // The publisher's count of subscribed connections, from the (un)subscriptions its XPUB
  // hands over (ZMQ_XPUB_VERBOSER: one per connection, and one more when it goes).
  void count_subscription(bool subscribed) noexcept;
  std::vector<std::string> diagnoses() const;

  // Kept by the context as well, which hands lent buffers back until it has ended.
  std::shared_ptr<ZeroCopyPool> m_zero_copy;
  const std::byte* m_kept_payload_end = nullptr; // where the core's kept payload ends
  std::size_t m_zero_copy_from = 0;
  std::size_t m_header_bytes = 0;
  std::size_t m_max_message_size = 0;
  std::size_t m_bound_limit = 0;     // ZMQ_MAXMSGSIZE of the own endpoint's connections
  std::size_t m_connected_limit = 0; // ... and of those made to peers
  std::uint64_t m_messages_in = 0;   // messages of any kind, subscriptions included
  std::size_t m_subscribed = 0;      // publisher: connections subscribed now
  std::size_t m_peak_subscribed = 0; // ... and at most, at once
  bool m_curve = false;
  std::uint64_t m_sent_lent = 0;   // data messages ZeroMQ took from a lent buffer
  std::uint64_t m_sent_copied = 0; // ... and copied, every buffer being still lent
  // Declared before the socket so that it is released after it.
  std::shared_ptr<ZmqContext> m_context;
  zmq::socket_t m_socket;
  void* m_handle = nullptr;    // the raw socket, for the noexcept hot path
  zmq::socket_t m_deal_socket; // pushpull: PUSH (publisher) or PULL (subscriber)
  void* m_deal_handle = nullptr;
  void* m_send_handle = nullptr; // what send() uses: the XPUB/XSUB, or a one-subscriber PUSH
  bool m_publisher = true;
  int m_high_water_mark = default_high_water_mark;
  zmq_msg_t m_received{};
  Inbox m_inboxes[2];
  int m_inbox_count = 1; // the XPUB/XSUB's is first

  struct OwnFile {
    std::string path; // an ipc:// socket file this process bound, removed at exit
    FileIdentity identity;
  };
  std::vector<OwnFile> m_own_files;

  std::vector<std::string> m_local_addresses;
  std::vector<std::string> m_peer_addresses;
  std::size_t m_requested_buffer_bytes = 0;
  int m_kernel_buffer_bytes = 0; // SO_SNDBUF/SO_RCVBUF asked of every tcp connection; 0: none
  std::size_t m_granted_send_buffer_bytes = 0;
  std::size_t m_granted_receive_buffer_bytes = 0;
  std::vector<std::string> m_notes;
};

} // namespace netprof::zeromq
