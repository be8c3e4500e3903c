#pragma once

// What the bare Fast DDS ping-pong needs of Fast DDS, with no netprof code: an opaque-bytes type
// (the same plain-CDR wire form as netprof's netprof_dds::Message: encapsulation, uint32 length,
// bytes), the loopback participant netprof's --fastdds-loopback uses (UDPv4 on 127.0.0.1 alone,
// no shared memory, no multicast, unicast discovery to 127.0.0.1), and netprof's default QoS
// (reliable, keep-last 16, volatile, dynamic history memory), so both sides of the comparison
// pay for the same DDS.

#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>
#include <fastcdr/exceptions/Exception.h>
#include <fastdds/dds/domain/qos/DomainParticipantQos.hpp>
#include <fastdds/dds/publisher/qos/DataWriterQos.hpp>
#include <fastdds/dds/subscriber/qos/DataReaderQos.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace bare_fastdds {

namespace dds = eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::SerializedPayload_t;

// Written from `out` (not copied first); read into `in`, reused from one sample to the next.
struct Bytes {
  const std::uint8_t* out = nullptr;
  std::uint32_t out_size = 0;
  std::vector<std::uint8_t> in;
};

class BytesType final : public dds::TopicDataType {
public:
  BytesType()
  {
    setName("bare_fastdds::Bytes");
    m_typeSize = (1u << 20) + 64;
    m_isGetKeyDefined = false;
    auto_fill_type_object(false);
    auto_fill_type_information(false);
  }

  bool serialize(void* data, SerializedPayload_t* payload) override
  {
    const auto& sample = *static_cast<const Bytes*>(data);
    eprosima::fastcdr::FastBuffer buffer(reinterpret_cast<char*>(payload->data), payload->max_size);
    eprosima::fastcdr::Cdr cdr(buffer, eprosima::fastcdr::Cdr::DEFAULT_ENDIAN,
                               eprosima::fastcdr::Cdr::DDS_CDR);
    try {
      cdr.serialize_encapsulation();
      cdr.serialize(sample.out_size);
      cdr.serializeArray(sample.out, sample.out_size);
    } catch (const eprosima::fastcdr::exception::Exception&) {
      return false;
    }
    payload->encapsulation = CDR_LE;
    payload->length = static_cast<std::uint32_t>(cdr.getSerializedDataLength());
    return true;
  }

  bool deserialize(SerializedPayload_t* payload, void* data) override
  {
    auto& sample = *static_cast<Bytes*>(data);
    eprosima::fastcdr::FastBuffer buffer(reinterpret_cast<char*>(payload->data), payload->length);
    eprosima::fastcdr::Cdr cdr(buffer, eprosima::fastcdr::Cdr::DEFAULT_ENDIAN,
                               eprosima::fastcdr::Cdr::DDS_CDR);
    try {
      cdr.read_encapsulation();
      std::uint32_t length = 0;
      cdr.deserialize(length);
      if (length > payload->length)
        return false;
      sample.in.resize(length);
      cdr.deserializeArray(sample.in.data(), length);
    } catch (const eprosima::fastcdr::exception::Exception&) {
      return false;
    }
    return true;
  }

  std::function<std::uint32_t()> getSerializedSizeProvider(void* data) override
  {
    return [data] { return 8 + static_cast<const Bytes*>(data)->out_size; };
  }

  void* createData() override { return new Bytes(); }
  void deleteData(void* data) override { delete static_cast<Bytes*>(data); }
  bool getKey(void*, eprosima::fastrtps::rtps::InstanceHandle_t*, bool) override { return false; }
};

inline eprosima::fastrtps::rtps::Locator_t loopback_locator()
{
  eprosima::fastrtps::rtps::Locator_t locator;
  locator.kind = LOCATOR_KIND_UDPv4;
  eprosima::fastrtps::rtps::IPLocator::setIPv4(locator, 127, 0, 0, 1);
  return locator; // port 0: Fast DDS's well-known port for the participant's id
}

inline dds::DomainParticipantQos loopback_participant_qos()
{
  dds::DomainParticipantQos qos = dds::PARTICIPANT_QOS_DEFAULT;
  auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
  udp->interfaceWhiteList.assign(1, "127.0.0.1");
  udp->maxInitialPeersRange = 50;
  udp->receiveBufferSize = 1u << 20; // as netprof's
  qos.transport().use_builtin_transports = false;
  qos.transport().user_transports.assign(1, udp);
  qos.wire_protocol().builtin.initialPeersList.push_back(loopback_locator());
  qos.wire_protocol().builtin.metatrafficUnicastLocatorList.push_back(loopback_locator());
  qos.wire_protocol().default_unicast_locator_list.push_back(loopback_locator());
  return qos;
}

inline void set_heartbeat(dds::DataWriterQos& qos)
{
  qos.reliable_writer_qos().times.heartbeatPeriod = eprosima::fastrtps::Duration_t{0, 100'000'000};
}
inline void set_heartbeat(dds::DataReaderQos&) {}

// netprof's default: reliable (1 ms max blocking), keep-last 16, volatile, dynamic memory, a
// writer's heartbeat every 100 ms; or with `keep_all`, --fastdds-history keep-all without -q:
// keep-all, at most 1,024 samples.
template <typename EntityQos> void set_netprof_default_qos(EntityQos& qos, bool keep_all)
{
  set_heartbeat(qos);
  const std::int32_t samples = keep_all ? 1024 : 16;
  qos.reliability().kind = dds::RELIABLE_RELIABILITY_QOS;
  qos.reliability().max_blocking_time = eprosima::fastrtps::Duration_t{0, 1'000'000};
  qos.durability().kind = dds::VOLATILE_DURABILITY_QOS;
  qos.history().kind = keep_all ? dds::KEEP_ALL_HISTORY_QOS : dds::KEEP_LAST_HISTORY_QOS;
  qos.history().depth = keep_all ? 1 : samples;
  qos.resource_limits().max_instances = 1;
  qos.resource_limits().max_samples = samples;
  qos.resource_limits().max_samples_per_instance = samples;
  qos.resource_limits().allocated_samples = samples; // as netprof's: all it may hold
  qos.endpoint().history_memory_policy = eprosima::fastrtps::rtps::DYNAMIC_REUSABLE_MEMORY_MODE;
}

} // namespace bare_fastdds
