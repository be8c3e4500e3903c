#pragma once

#include "fastdds_message_type.hpp"
#include "fastdds_participant.hpp"
#include "fastdds_qos.hpp"

#include "common/dds_endpoint_settings.hpp"
#include "common/dds_receive_loops.hpp"

#include <netprof/transport.hpp>

#include <fastdds/dds/core/condition/GuardCondition.hpp>
#include <fastdds/dds/core/condition/WaitSet.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/ReadCondition.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace netprof::fastdds_parts {

// What a --fastdds-notify means with this vendor's threads, for the report's notes.
const char* notify_meaning(transport_common::DdsNotify notify) noexcept;

// A Fast DDS participant with two topics, PREFIX_data (publisher -> subscribers) and PREFIX_echo
// (the back channel). The publisher writes data and reads echo; a subscriber the reverse. Every
// sample reaches every matched reader, so nothing is adopted. A subscriber holds its sends back
// (SendCause::connecting) until its reader and writer are both matched with the publisher's; a peer
// whose QoS Fast DDS will not match ends the run at once, naming both QoS. The same topics, type
// and QoS as a Cyclone endpoint of the dds transport, so either may be the other's peer: its
// state, notes and receive loops are the dds transport's too (common/dds_endpoint_state.hpp,
// common/dds_receive_loops.hpp); Fast DDS's entities, statuses and take are here.
class FastDdsEndpoint final : public Endpoint,
                              public transport_common::DdsReceiveLoops<FastDdsEndpoint>,
                              private eprosima::fastdds::dds::DataReaderListener {
public:
  // The largest payload (-s), as the dds transport's.
  static constexpr std::size_t max_payload_size = std::size_t{1} << 20;
  // Samples handed to the sink per receive().
  static constexpr int receive_batch = 32;

  // Throws TransportError when Fast DDS refuses.
  explicit FastDdsEndpoint(const EndpointSettings& settings);
  ~FastDdsEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  SendOutcome flush() noexcept override { return {}; } // a synchronous writer sends in write()
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

private:
  // What the receive loops call (common/dds_receive_loops.hpp says what each does).
  friend class transport_common::DdsReceiveLoops<FastDdsEndpoint>;
  int take(MessageSink& sink, bool always) noexcept;
  bool wait(Nanoseconds remaining, bool& data) noexcept;
  void wake_core() noexcept;
  void clear_wake() noexcept;
  // Fast DDS's receive thread, on every sample that arrives (listener and waitset: see
  // fastdds_receive.cpp).
  void on_data_available(eprosima::fastdds::dds::DataReader* reader) override;
  void create_entities(std::int32_t keep_all);
  void create_waitset();
  // Whether a sample written now has a matched reader to reach (see the .cpp); false too once a
  // peer's QoS was found incompatible.
  bool ready_to_send() noexcept;
  // Reads the matched and incompatible-QoS statuses (which also clears their triggers);
  // false once a peer's QoS was found incompatible.
  bool check_statuses() noexcept;
  void add_notes(std::uint32_t domain, std::int32_t keep_all);

  std::size_t m_max_message_size;
  std::unique_ptr<Participant> m_participant;
  eprosima::fastdds::dds::Publisher* m_dds_publisher = nullptr;
  eprosima::fastdds::dds::Subscriber* m_dds_subscriber = nullptr;
  eprosima::fastdds::dds::DataWriter* m_writer = nullptr;
  eprosima::fastdds::dds::DataReader* m_reader = nullptr;
  eprosima::fastdds::dds::ReadCondition* m_read_condition = nullptr;
  eprosima::fastdds::dds::GuardCondition m_wake; // listener: set after handing samples over
  eprosima::fastdds::dds::WaitSet m_waitset;
  eprosima::fastdds::dds::ConditionSeq m_triggered; // reserved once: wait() allocates nothing
  MessageSample m_taken;                            // reused by every take
};

} // namespace netprof::fastdds_parts
