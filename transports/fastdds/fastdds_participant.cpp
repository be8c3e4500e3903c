#include "fastdds_participant.hpp"

#include "fastdds_message_type.hpp"

#include <netprof/errors.hpp>

#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/dds/topic/qos/TopicQos.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

namespace netprof::fastdds_parts {

namespace {

namespace dds = eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::IPLocator;

constexpr std::uint32_t receive_buffer_bytes = 1u << 20;
using eprosima::fastrtps::rtps::Locator_t;

// 127.0.0.1 with port 0: Fast DDS puts the port of the participant's id (the RTPS well-known
// ports, 7400 + 250 d + 10 + 2 id for discovery, + 11 + 2 id for data) in its place.
Locator_t loopback_locator()
{
  Locator_t locator;
  locator.kind = LOCATOR_KIND_UDPv4;
  IPLocator::setIPv4(locator, 127, 0, 0, 1);
  locator.port = 0;
  return locator;
}

// The participants this process holds (see ~Participant).
struct ProcessParticipants {
  std::mutex mutex;
  std::size_t live = 0;
  std::vector<dds::DomainParticipant*> emptied; // entities deleted, the participant kept
};

ProcessParticipants& process_participants()
{
  static ProcessParticipants participants;
  return participants;
}

std::string user_origin()
{
  for (const char* variable : {"FASTRTPS_DEFAULT_PROFILES_FILE", "FASTDDS_DEFAULT_PROFILES_FILE"}) {
    const char* file = std::getenv(variable);
    if (file != nullptr && *file != '\0')
      return std::string(variable) + "=" + file + " (its default participant profile)";
  }
  return "Fast DDS's defaults (no FASTRTPS_DEFAULT_PROFILES_FILE): UDPv4 on every interface and "
         "shared memory, multicast discovery";
}

} // namespace

namespace {

// Fast DDS's UDPv4 transport alone, on the interface that has `address` only (its whitelist):
// no shared memory, no other interface.
dds::DomainParticipantQos udp_only_qos(const std::string& address)
{
  dds::DomainParticipantQos qos = dds::PARTICIPANT_QOS_DEFAULT;
  qos.name("netprof");
  auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
  udp->interfaceWhiteList.assign(1, address);
  udp->maxInitialPeersRange = loopback_participant_ids;
  // Fast DDS leaves the kernel's default receive buffer (208 KiB here), which a stream's small
  // datagrams overflow while a receive thread waits for a CPU; each one dropped stalls a
  // reliable writer until its next heartbeat. Cyclone asks for 1 MiB; this asks for as much
  // (the kernel grants at most net.core.rmem_max).
  udp->receiveBufferSize = receive_buffer_bytes;
  qos.transport().use_builtin_transports = false;
  qos.transport().user_transports.assign(1, udp);
  return qos;
}

} // namespace

dds::DomainParticipantQos loopback_participant_qos()
{
  dds::DomainParticipantQos qos = udp_only_qos("127.0.0.1");
  auto& builtin = qos.wire_protocol().builtin;
  builtin.initialPeersList.push_back(loopback_locator());
  // Given unicast locators, Fast DDS adds no multicast one (its "disable multicast" recipe).
  builtin.metatrafficUnicastLocatorList.push_back(loopback_locator());
  qos.wire_protocol().default_unicast_locator_list.push_back(loopback_locator());
  return qos;
}

dds::DomainParticipantQos interface_participant_qos(const transport_common::DdsInterface& interface)
{
  return udp_only_qos(interface.address); // multicast discovery, as Fast DDS's defaults
}

Participant::Participant(std::uint32_t domain, bool loopback,
                         const std::optional<transport_common::DdsInterface>& interface,
                         const std::string& topic_prefix, std::size_t max_message_bytes)
{
  dds::DomainParticipantFactory& factory = *dds::DomainParticipantFactory::get_instance();
  if (interface) {
    m_origin = "--fastdds-interface: UDPv4 on " + interface->name + " (" + interface->address +
               ") only, no shared memory, multicast discovery on it";
    m_participant = factory.create_participant(domain, interface_participant_qos(*interface));
  } else if (loopback) {
    m_origin = "--fastdds-loopback: UDPv4 on 127.0.0.1 only, no shared memory, no multicast, "
               "discovery by unicast to 127.0.0.1";
    m_participant = factory.create_participant(domain, loopback_participant_qos());
  } else {
    m_origin = user_origin();
    m_participant = factory.create_participant(domain, factory.get_default_participant_qos());
  }
  if (m_participant == nullptr)
    throw TransportError("cannot create the Fast DDS participant in domain " +
                         std::to_string(domain) + " (is the Fast DDS profile valid?)");
  try {
    if (dds::TypeSupport(new MessageType(max_message_bytes)).register_type(m_participant) !=
        ReturnCode_t::RETCODE_OK)
      throw TransportError("cannot register the Fast DDS type netprof_dds::Message");
    m_data_topic = create_topic(topic_prefix + "_data");
    m_echo_topic = create_topic(topic_prefix + "_echo");
  } catch (...) {
    factory.delete_participant(m_participant);
    throw;
  }
  ProcessParticipants& participants = process_participants();
  const std::lock_guard lock(participants.mutex);
  ++participants.live;
}

dds::Topic* Participant::create_topic(const std::string& name)
{
  dds::Topic* topic =
      m_participant->create_topic(name, MessageType::type_name, dds::TOPIC_QOS_DEFAULT);
  if (topic == nullptr)
    throw TransportError("cannot create the Fast DDS topic " + name);
  return topic;
}

// Fast DDS 2.9 crashed (StatefulWriter::intraprocess_gap, from EDPSimple::removeLocalReader)
// when a participant's reader was deleted after another participant of the same process had
// been: its discovery writer still held a proxy of the gone participant's reader (the contract
// test, whose two endpoints share a process, segfaulted in 1 run of 35). So a participant's
// entities go at once, but the participant itself only with the last one of the process;
// netprof's roles hold one participant per process, which goes at once.
Participant::~Participant()
{
  m_participant->delete_contained_entities();
  ProcessParticipants& participants = process_participants();
  dds::DomainParticipant* at_once = nullptr; // no memory left to keep it
  std::vector<dds::DomainParticipant*> with_the_last;
  {
    const std::lock_guard lock(participants.mutex);
    try {
      participants.emptied.push_back(m_participant);
    } catch (...) {
      at_once = m_participant;
    }
    if (--participants.live == 0)
      with_the_last.swap(participants.emptied);
  }
  dds::DomainParticipantFactory& factory = *dds::DomainParticipantFactory::get_instance();
  if (at_once != nullptr)
    factory.delete_participant(at_once);
  for (dds::DomainParticipant* participant : with_the_last)
    factory.delete_participant(participant);
}

} // namespace netprof::fastdds_parts
