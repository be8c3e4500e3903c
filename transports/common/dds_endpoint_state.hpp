#pragma once

// What a DDS endpoint of either vendor (dds: Cyclone, fastdds: Fast DDS) keeps and decides
// alike: its role and topics, discovery's bookkeeping, an incompatible peer's diagnosis, the
// notes and facts of the report. Each vendor's endpoint reads its own entities' statuses and
// hands the counts here, so the two word and time discovery the same. No vendor's API here.

#include "dds_endpoint_settings.hpp"

#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netprof::transport_common {

// The words a report takes from the vendor, where the two transports' differ.
struct DdsVendorWords {
  const char* transport;       // "dds": EndpointFacts::transport
  const char* receive_thread;  // "Cyclone's": whose thread hands samples over with a listener
  const char* reliability_fix; // "--dds-reliability": what a reliability mismatch should change
  const char* same_everywhere; // what discovery needs alike on every process, for its diagnosis
};

// A QoS policy a vendor's writer or reader found incompatible with a peer's (none: refused false).
struct DdsRefusal {
  bool refused = false;
  bool reliability = false; // the policy is reliability: named with both sides' settings
  const char* policy = "";  // "durability", ...: any other policy, by name
};

class DdsEndpointState {
public:
  // The names each vendor's endpoint uses for its settings and notification.
  using EndpointSettings = DdsEndpointSettings;
  using Notify = DdsNotify;

  // Discovery is complete: the subscriber's reader and writer are matched, or the publisher's
  // writer and reader each with as many remote endpoints as it waits for subscribers.
  bool discovered() const noexcept { return m_discovered_at.has_value(); }

protected:
  DdsEndpointState(const DdsEndpointSettings& settings, const DdsVendorWords& words);

  // What the vendor read of its writer's and reader's statuses: times discovery's end, words a
  // refusal once; false once a peer's QoS was found incompatible.
  bool record_statuses(std::uint32_t writer_matches, std::uint32_t reader_matches,
                       const DdsRefusal& writer, const DdsRefusal& reader) noexcept;
  // Closing after meeting an incompatible peer: stays a moment (see the .cpp). Call before the
  // vendor's entities go.
  void linger_if_incompatible() const;

  // The report's notes both vendors write: the QoS, the notification, the topics.
  std::string qos_note(std::int32_t keep_all) const;
  std::string notify_note(const char* meaning) const;
  std::string topics_note() const;
  // The facts both vendors state alike; the vendor adds its size limit and hint.
  EndpointFacts common_facts() const;

  const DdsVendorWords m_words;
  const bool m_publisher;
  const DdsNotify m_notify;
  const QosChoice m_qos;
  const std::size_t m_expected_matches;
  const std::string m_data_topic_name;
  const std::string m_echo_topic_name;
  const std::size_t m_requested_buffer_bytes;
  const Clock::time_point m_opened;
  std::optional<Clock::time_point> m_discovered_at;
  Clock::time_point m_next_status_check;
  std::uint32_t m_writer_matches = 0; // remote readers matched by the writer, now
  std::uint32_t m_reader_matches = 0;
  std::vector<std::string> m_notes;
  std::vector<std::string> m_diagnoses;
  bool m_incompatible = false;
  // Samples handed to the sink on the vendor's thread (written only while it holds the sink) and
  // on the core's thread, for the report.
  std::uint64_t m_delivered_by_listener = 0;
  std::uint64_t m_delivered_by_core = 0;
  // Hand-overs after which the vendor's thread woke the core (written while it holds the sink).
  std::uint64_t m_core_wakes = 0;

private:
  void describe_incompatibility(const DdsRefusal& refusal, bool on_writer);
};

} // namespace netprof::transport_common
