#pragma once

#include "common/dds_endpoint_settings.hpp"
#include "common/sink_handover.hpp"
#include "dds_domain.hpp"
#include "dds_qos.hpp"
#include "dds_sample_codec.hpp"

#include <netprof/transport.hpp>

#include <dds/dds.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof::dds_parts {

// --VENDOR-notify and what the transport derived from the command line for one endpoint, as
// both DDS transports have them (common/dds_endpoint_settings.hpp).
using Notify = transport_common::DdsNotify;
using EndpointSettings = transport_common::DdsEndpointSettings;
using transport_common::notify_name;
// What a Notify means with this vendor's threads, for the report's notes.
const char* notify_meaning(Notify notify) noexcept;

// A participant with two topics, PREFIX_data (publisher -> subscribers) and PREFIX_echo (the back
// channel: hellos, echoes, final counters). The publisher writes data and reads echo; a
// subscriber the reverse. Every sample reaches every matched reader, so nothing is adopted.
// A subscriber holds its sends back (SendCause::connecting) until its reader and its writer
// are both matched with the publisher's, so its first hello is not lost to discovery; the time
// that took is reported as discovery_seconds. A peer whose QoS DDS will not match ends the run
// at once (receive() fails, naming both QoS) instead of leaving it to wait for --wait.
// Both topics carry the type of --payload-type and --dds-keys (dds_sample_codec.hpp); data
// messages go round-robin over the --dds-keys instances by their order, which is their sequence.
class DdsEndpoint final : public Endpoint, public PayloadKeeper {
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

  // Discovery is complete: the subscriber's reader and writer are matched, or the publisher's
  // writer and reader each with as many remote endpoints as it waits for subscribers.
  bool discovered() const noexcept { return m_discovered_at.has_value(); }

private:
  // Hands at most a batch of waiting samples to the sink: their number, or -1 on an error.
  // Looks only when on_data_available said something came, unless `always`.
  int take(MessageSink& sink, bool always = false) noexcept;
  // Cyclone's receive thread, on every sample that arrives: marks data waiting.
  static void on_data_available(dds_entity_t reader, void* endpoint);
  // The same with --dds-notify listener: hands the samples to the core's sink when the core
  // lent it (it waits in receive()), and wakes the core; else marks data waiting.
  static void on_data_available_lend(dds_entity_t reader, void* endpoint);
  // receive() for each --dds-notify, once discovery is checked.
  ReceiveResult receive_in_waitset(MessageSink& sink, Nanoseconds timeout) noexcept;
  ReceiveResult receive_in_listener(MessageSink& sink, Nanoseconds timeout) noexcept;
  ReceiveResult receive_by_polling(MessageSink& sink, Nanoseconds timeout) noexcept;
  // Took `got` samples on the core's thread: the result receive() returns, counted.
  ReceiveResult taken_here(int got) noexcept;
  // The reader, with the listener its notification needs (none to poll), or Cyclone's error.
  dds_entity_t create_reader(dds_entity_t topic, const dds_qos_t* qos) noexcept;
  // The waitset of the statuses, of the samples (waitset) or of the listener's wake-up.
  void create_waitset();
  // Reads the matched and incompatible-QoS statuses (which also clears their triggers on the
  // waitset); false once a peer's QoS was found incompatible.
  bool check_statuses() noexcept;
  void describe_incompatibility(dds_qos_policy_id_t policy, bool on_writer);
  void throw_if_failed(dds_entity_t entity, const char* what) const;

  // What the waitset's triggers name.
  static constexpr dds_attach_t data_attachment = 1;
  static constexpr dds_attach_t status_attachment = 2;
  static constexpr dds_attach_t wake_attachment = 3;

  bool m_publisher;
  Notify m_notify;
  QosChoice m_qos;
  std::size_t m_expected_matches;
  std::string m_data_topic_name;
  std::string m_echo_topic_name;
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
  std::size_t m_requested_buffer_bytes = 0;
  Clock::time_point m_opened;
  std::optional<Clock::time_point> m_discovered_at;
  Clock::time_point m_next_status_check;
  std::uint32_t m_writer_matches = 0; // remote readers matched by the writer, now
  std::uint32_t m_reader_matches = 0;
  std::vector<std::string> m_notes;
  std::vector<std::string> m_diagnoses;
  bool m_incompatible = false;
  // Set by on_data_available, cleared by take() before it looks: a look that finds it clear
  // costs an atomic load instead of a dds_take (the core looks often: echoes in a stream,
  // polls before it sleeps, --wait-strategy spin).
  std::atomic<bool> m_data_waiting{true};
  transport_common::SinkHandover m_handover;
  // Samples handed to the sink on Cyclone's thread (written only while it holds the sink) and
  // on the core's thread, for the report.
  std::uint64_t m_delivered_by_listener = 0;
  std::uint64_t m_delivered_by_core = 0;
};

} // namespace netprof::dds_parts
