#pragma once

// A Fast DDS domain participant with netprof's two topics (PREFIX_data and PREFIX_echo, of
// MessageType), configured either by --fastdds-loopback's profile or by the user's (Fast DDS's
// XML profiles, FASTRTPS_DEFAULT_PROFILES_FILE, else its defaults), or --fastdds-interface's.

#include "common/dds_endpoint_settings.hpp"

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/qos/DomainParticipantQos.hpp>
#include <fastdds/dds/topic/Topic.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::fastdds_parts {

// Participant ids (per domain, per host) the loopback profile's discovery reaches: every
// process of a run on one host below this many, the number Cyclone's --dds-loopback probes
// (its MaxAutoParticipantIndex) so that a mixed run reaches the same ports either way.
inline constexpr std::uint32_t loopback_participant_ids = 50;

// --fastdds-loopback's participant: the UDPv4 transport alone, on 127.0.0.1 only (its interface
// whitelist), discovery and data by unicast (no multicast locator at all), initial peers
// 127.0.0.1 at the discovery ports of the first loopback_participant_ids participants. Fast
// DDS's built-in shared-memory transport is left out: a mixed run with Cyclone goes over UDP
// anyway, two Fast DDS processes are then measured over the same UDP path as two Cyclone ones,
// and a killed process leaves no segment in /dev/shm.
eprosima::fastdds::dds::DomainParticipantQos loopback_participant_qos();

// Owns a participant and its two topics; deleting it deletes every entity they contain.
// --fastdds-interface's participant: the UDPv4 transport alone on that interface (its whitelist
// holds the interface's address), no shared memory, discovery by multicast on it as Fast DDS's
// defaults have it: nothing goes out on any other interface.
eprosima::fastdds::dds::DomainParticipantQos
interface_participant_qos(const transport_common::DdsInterface& interface);

class Participant {
public:
  // `origin` is set to what configured it, for the report's notes. Throws TransportError.
  Participant(std::uint32_t domain, bool loopback,
              const std::optional<transport_common::DdsInterface>& interface,
              const std::string& topic_prefix, std::size_t max_message_bytes);
  ~Participant();

  Participant(const Participant&) = delete;
  Participant& operator=(const Participant&) = delete;

  eprosima::fastdds::dds::DomainParticipant& get() const noexcept { return *m_participant; }
  eprosima::fastdds::dds::Topic& data_topic() const noexcept { return *m_data_topic; }
  eprosima::fastdds::dds::Topic& echo_topic() const noexcept { return *m_echo_topic; }
  // "--fastdds-loopback: ...", or the profile it read.
  const std::string& origin() const noexcept { return m_origin; }

private:
  eprosima::fastdds::dds::Topic* create_topic(const std::string& name);

  std::string m_origin;
  eprosima::fastdds::dds::DomainParticipant* m_participant = nullptr;
  eprosima::fastdds::dds::Topic* m_data_topic = nullptr;
  eprosima::fastdds::dds::Topic* m_echo_topic = nullptr;
};

} // namespace netprof::fastdds_parts
