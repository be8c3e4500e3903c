#pragma once

#include "common/dds_endpoint_settings.hpp"
#include "common/dds_receive_loops.hpp"
#include "dds_domain.hpp"
#include "dds_qos.hpp"
#include "dds_sample_codec.hpp"

#include <netprof/transport.hpp>

#include <dds/dds.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace netprof::dds_parts {

// What a --dds-notify means with this vendor's threads, for the report's notes.
const char* notify_meaning(transport_common::DdsNotify notify) noexcept;

// A participant with two topics, PREFIX_data (publisher -> subscribers) and PREFIX_echo (the back
// channel: hellos, echoes, final counters). The publisher writes data and reads echo; a
// subscriber the reverse. Every sample reaches every matched reader, so nothing is adopted.
// A subscriber holds its sends back (SendCause::connecting) until its reader and its writer
// are both matched with the publisher's, so its first hello is not lost to discovery; the time
// that took is reported as discovery_seconds. A peer whose QoS DDS will not match ends the run
// at once (receive() fails, naming both QoS) instead of leaving it to wait for --wait.
// Both topics carry the type of --payload-type and --dds-keys (dds_sample_codec.hpp); data
// messages go round-robin over the --dds-keys instances by their order, which is their sequence.
// Its state, notes and receive loops are both DDS transports' (common/dds_endpoint_state.hpp,
// common/dds_receive_loops.hpp); Cyclone's entities, statuses and take are here.
class DdsEndpoint final : public Endpoint,
                          public PayloadKeeper,
                          public transport_common::DdsReceiveLoops<DdsEndpoint> {
public:
  // The largest payload (-s): a sample of it with netprof's header fits max_serialized_sample.
  static constexpr std::size_t max_payload_size = std::size_t{1} << 20;
  // Samples handed to the sink per receive().
  static constexpr std::int32_t receive_batch = 32;

  // Throws TransportError when Cyclone refuses.
  explicit DdsEndpoint(const EndpointSettings& settings);
  ~DdsEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  // Samples written wait in Cyclone's write batch (Internal/WriteBatch) until a datagram is
  // full or this sends them.
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;
  // The data messages' payload, laid into a typed sample once (SampleCodec::keep_payload).
  void keep_payload(std::span<const std::byte> payload) override;

private:
  // What the receive loops call (common/dds_receive_loops.hpp says what each does).
  friend class transport_common::DdsReceiveLoops<DdsEndpoint>;
  int take(MessageSink& sink, bool always) noexcept;
  bool wait(Nanoseconds remaining, bool& data) noexcept;
  void wake_core() noexcept;
  void clear_wake() noexcept;
  // Cyclone's receive thread, on every sample that arrives: marks data waiting.
  static void on_data_available(dds_entity_t reader, void* endpoint);
  // The same with --dds-notify listener: hands the samples over (hand_over_on_listener_thread).
  static void on_data_available_lend(dds_entity_t reader, void* endpoint);
  // The reader, with the listener its notification needs (none to poll), or Cyclone's error.
  dds_entity_t create_reader(dds_entity_t topic, const dds_qos_t* qos) noexcept;
  // The waitset of the statuses, of the samples (waitset) or of the listener's wake-up.
  void create_waitset();
  // Reads the matched and incompatible-QoS statuses (which also clears their triggers on the
  // waitset); false once a peer's QoS was found incompatible.
  bool check_statuses() noexcept;
  void throw_if_failed(dds_entity_t entity, const char* what) const;

  // What the waitset's triggers name.
  static constexpr dds_attach_t data_attachment = 1;
  static constexpr dds_attach_t status_attachment = 2;
  static constexpr dds_attach_t wake_attachment = 3;

  std::unique_ptr<DomainLease> m_domain;
  dds_entity_t m_participant = 0;
  dds_entity_t m_writer = 0;
  dds_entity_t m_reader = 0;
  dds_entity_t m_read_condition = 0;
  dds_entity_t m_waitset = 0;
  dds_entity_t m_wake = 0; // listener: a guard condition it sets after handing samples over
  std::size_t m_max_message_size = 0;
  SampleCodec m_codec;
  std::uint32_t m_keys = 1;
  std::uint64_t m_data_written = 0; // data messages written: their instance is this modulo keys
};

} // namespace netprof::dds_parts
