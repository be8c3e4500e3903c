#pragma once

// One bare Fast DDS process's participant (netprof's loopback profile), writer and reader on two
// topics, and how it hears of samples: a WaitSet on a ReadCondition (the process's own thread
// takes them) or a DataReaderListener (Fast DDS's receive thread takes them, and wakes the
// process through a GuardCondition when asked to). No netprof code.

#include "bare_fastdds_common.hpp"

#include <fastdds/dds/core/condition/GuardCondition.hpp>
#include <fastdds/dds/core/condition/WaitSet.hpp>
#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/ReadCondition.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bare_fastdds {

struct SideSettings {
  std::uint32_t domain = 78;
  bool listener = false; // else a waitset
  bool keep_all = false; // else netprof's default keep-last 16
};

// One process's participant, writer and reader, and how it hears of samples.
class Side final : private dds::DataReaderListener {
public:
  using OnSample = std::function<void(const Bytes&)>;

  // `on_sample` runs on Fast DDS's thread (listener) or in take_one() (waitset).
  Side(const SideSettings& settings, const std::string& write_topic, const std::string& read_topic,
       OnSample on_sample)
      : m_on_sample(std::move(on_sample)), m_listener(settings.listener)
  {
    auto& factory = *dds::DomainParticipantFactory::get_instance();
    m_participant = factory.create_participant(settings.domain, loopback_participant_qos());
    if (m_participant == nullptr)
      throw std::runtime_error{"no participant"};
    dds::TypeSupport(new BytesType()).register_type(m_participant);
    dds::DataWriterQos writer_qos = dds::DATAWRITER_QOS_DEFAULT;
    dds::DataReaderQos reader_qos = dds::DATAREADER_QOS_DEFAULT;
    set_netprof_default_qos(writer_qos, settings.keep_all);
    set_netprof_default_qos(reader_qos, settings.keep_all);
    auto* written =
        m_participant->create_topic(write_topic, "bare_fastdds::Bytes", dds::TOPIC_QOS_DEFAULT);
    auto* read =
        m_participant->create_topic(read_topic, "bare_fastdds::Bytes", dds::TOPIC_QOS_DEFAULT);
    m_writer = m_participant->create_publisher(dds::PUBLISHER_QOS_DEFAULT)
                   ->create_datawriter(written, writer_qos);
    m_reader = m_participant->create_subscriber(dds::SUBSCRIBER_QOS_DEFAULT)
                   ->create_datareader(read, reader_qos, m_listener ? this : nullptr,
                                       m_listener ? dds::StatusMask::data_available()
                                                  : dds::StatusMask::none());
    if (m_writer == nullptr || m_reader == nullptr)
      throw std::runtime_error{"no writer or reader"};
    m_read_condition = m_reader->create_readcondition(dds::ANY_SAMPLE_STATE, dds::ANY_VIEW_STATE,
                                                      dds::ANY_INSTANCE_STATE);
    m_waitset.attach_condition(m_listener ? static_cast<dds::Condition&>(m_wake)
                                          : static_cast<dds::Condition&>(*m_read_condition));
    m_triggered.reserve(2);
  }

  ~Side() override
  {
    m_reader->set_listener(nullptr);
    m_reader->delete_readcondition(m_read_condition);
    m_participant->delete_contained_entities();
    dds::DomainParticipantFactory::get_instance()->delete_participant(m_participant);
  }

  // The writer has met a remote reader (a stream's sender needs no more).
  bool writer_matched() const
  {
    dds::PublicationMatchedStatus published;
    m_writer->get_publication_matched_status(published);
    return published.current_count > 0;
  }

  bool matched() const
  {
    dds::PublicationMatchedStatus published;
    dds::SubscriptionMatchedStatus subscribed;
    m_writer->get_publication_matched_status(published);
    m_reader->get_subscription_matched_status(subscribed);
    return published.current_count > 0 && subscribed.current_count > 0;
  }

  void write(const std::vector<std::uint8_t>& bytes)
  {
    if (!try_write(bytes))
      throw std::runtime_error{"write failed"};
  }

  // False when the writer waited its 1 ms for room (keep-all: the reader lags).
  bool try_write(const std::vector<std::uint8_t>& bytes)
  {
    Bytes sample;
    sample.out = bytes.data();
    sample.out_size = static_cast<std::uint32_t>(bytes.size());
    return m_writer->write(&sample);
  }

  // Sleeps until a sample came (waitset: takes it; listener: it was taken) or `timeout`.
  bool wait(std::chrono::nanoseconds timeout)
  {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const eprosima::fastrtps::Duration_t limit{
        static_cast<std::int32_t>(seconds.count()),
        static_cast<std::uint32_t>((timeout - seconds).count())};
    if (m_waitset.wait(m_triggered, limit) != ReturnCode_t::RETCODE_OK)
      return false;
    if (m_listener)
      m_wake.set_trigger_value(false);
    else
      take_all();
    return true;
  }

  void wake() { m_wake.set_trigger_value(true); }
  void finish() { m_writer->wait_for_acknowledgments(eprosima::fastrtps::Duration_t{1, 0}); }

private:
  void on_data_available(dds::DataReader*) override { take_all(); }

  void take_all()
  {
    dds::SampleInfo info;
    while (m_reader->take_next_sample(&m_taken, &info) == ReturnCode_t::RETCODE_OK)
      if (info.valid_data)
        m_on_sample(m_taken);
  }

  OnSample m_on_sample;
  bool m_listener;
  dds::DomainParticipant* m_participant = nullptr;
  dds::DataWriter* m_writer = nullptr;
  dds::DataReader* m_reader = nullptr;
  dds::ReadCondition* m_read_condition = nullptr;
  dds::GuardCondition m_wake;
  dds::WaitSet m_waitset;
  dds::ConditionSeq m_triggered;
  Bytes m_taken;
};

} // namespace bare_fastdds
