#pragma once

// The two ends of the shared-memory transport. The publisher owns the segment: it creates it,
// writes the data ring, reads every subscriber's back ring, and unlinks it when it closes.
// A subscriber attaches to an existing segment, reads the data ring with its own cursor and
// writes its own back ring; until the publisher's segment exists it retries on every call.

#include "endpoint_support.hpp"
#include "ring.hpp"
#include "segment.hpp"

#include <netprof/transport.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof::shm {

struct EndpointSettings {
  std::string name;                     // --shm NAME
  std::size_t ring_capacity = 0;        // -q, rounded up to a power of two
  std::size_t requested_bytes = 0;      // -q as given
  History history = History::keep_last; // --shm-history (the publisher's decides)
  std::vector<std::string> notes;       // what the transport decided about -q
  OwnerPolicy owners;                   // whose segments to use (--shm-allow-user)
};

// Records handed to the sink per receive(): a batch large enough to drain a burst, small
// enough that the core gets control back often.
inline constexpr std::size_t receive_batch = 64;

// Lends the data ring's records (MessageLender): the core writes each data message in place,
// in the ring, so nothing is copied on the way out; a record lent where one of the same size was
// committed a lap ago holds its payload still (RingWriter::lend).
class PublisherEndpoint final : public Endpoint, public MessageLender {
public:
  // Creates the segment (see Segment::create). Throws TransportError. Fails (send, receive)
  // once the segment is truncated under it.
  explicit PublisherEndpoint(EndpointSettings settings);
  ~PublisherEndpoint() override;

  // One ring every subscriber reads: nobody to adopt, nobody hears another's back ring.
  SendOutcome send(std::span<const std::byte> message) noexcept override;
  // Wakes sleeping readers with the ordered check (an RMW) that send() leaves out.
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

private:
  Loan claim(std::size_t size) noexcept override;
  SendResult commit(const Loan& loan) noexcept override;
  void abandon(const Loan& loan) noexcept override;
  // What a write or a lend that did not get room comes to.
  SendOutcome refused(WriteResult result) noexcept;

  struct BackChannel {
    bool tracked = false;
    std::uint64_t session = 0;
    std::optional<RingReader> reader;
  };

  std::size_t poll_back_rings(MessageSink& sink) noexcept;
  bool back_readable() noexcept;
  void track_ready_slots() noexcept;
  // Frees the slots of subscribers whose process is gone, so keep_all never waits for them.
  void reap_dead_subscribers() noexcept;
  void drop_slot(std::size_t index) noexcept;

  EndpointSettings m_settings;
  Segment m_segment;
  std::string m_replaced_note; // before m_ring: the constructor fills both at once
  RingView m_ring;
  RingWriter m_writer;
  std::array<BackChannel, slot_count> m_back{};
  std::uint64_t m_tracked_mask = 0;
  std::uint64_t m_seen_changes = ~std::uint64_t{0}; // SlotTable::changes when last tracked
  Clock::time_point m_next_reap{};
  std::uint64_t m_dropped = 0;
  Failure m_failure;
};

class SubscriberEndpoint final : public Endpoint {
public:
  // Tries to attach at once; if the publisher is not there yet, every send() and receive()
  // tries again. Never throws for a missing segment; throws TransportError for one it must not
  // use (see segment_file.hpp). One found later, or a segment truncated under it, makes
  // receive() fail.
  SubscriberEndpoint(EndpointSettings settings, std::uint32_t id);
  ~SubscriberEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  // Wakes sleeping readers with the ordered check (an RMW) that send() leaves out.
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

private:
  bool attached() const noexcept { return m_segment.has_value(); }
  bool try_attach() noexcept;
  // Takes a free subscriber slot of `segment` and signs it with our PID and id; none if all
  // are taken.
  std::optional<std::size_t> claim_slot(Segment& segment) noexcept;
  // keep_last delivers copies: the buffer for them, allocated before any data can flow.
  bool reserve_copy_buffer(const RingView& ring) noexcept;
  // The segment was refused or truncated: detached for good, and the core is to end the run.
  bool gave_up() noexcept;
  // Leaves the segment; `keep_slot_bits` when the publisher already took our slot back.
  void detach(bool keep_slot_bits = false) noexcept;
  // Still attached to a live publisher's current segment? Detaches (to retry) if not.
  bool check_health() noexcept;
  std::size_t read(MessageSink& sink) noexcept;

  EndpointSettings m_settings;
  std::uint32_t m_id;
  std::string m_path;
  std::optional<Segment> m_segment;
  std::optional<RingView> m_ring;
  std::optional<RingReader> m_reader;
  std::optional<RingWriter> m_back;
  std::size_t m_slot = 0;
  // keep_last copies records here before delivering them: half the ring, allocated once per
  // attachment and left untouched until used (a vector would zero all of it).
  std::unique_ptr<std::uint64_t[]> m_copy;
  std::size_t m_copy_words = 0;
  std::uint32_t m_idle_polls = 0;
  Clock::time_point m_next_health_check{};
  std::uint64_t m_attaches = 0;
  std::uint64_t m_overruns = 0; // over earlier attachments; the reader counts the current
  std::uint64_t m_bytes_skipped = 0;
  bool m_reported_full = false;
  bool m_answer_line_taken = false; // since our last write to the back ring
  Failure m_failure;
};

} // namespace netprof::shm
