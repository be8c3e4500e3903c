#include "dds_endpoint_state.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace netprof::transport_common {

namespace {

// How often an idle or busy-polling endpoint looks at its matches and QoS statuses.
constexpr auto status_interval = std::chrono::milliseconds(10);

// How long an endpoint that met an incompatible peer stays in the domain when closed.
constexpr auto incompatible_linger = std::chrono::milliseconds(1000);

} // namespace

DdsEndpointState::DdsEndpointState(const DdsEndpointSettings& settings, const DdsVendorWords& words)
    : m_words(words), m_publisher(settings.role == Role::publisher), m_notify(settings.notify),
      m_qos(settings.qos),
      m_expected_matches(m_publisher ? std::max<std::size_t>(settings.subscribers, 1) : 1),
      m_data_topic_name(settings.topic_prefix + "_data"),
      m_echo_topic_name(settings.topic_prefix + "_echo"),
      m_requested_buffer_bytes(settings.queue_length_bytes), m_opened(Clock::now()),
      m_next_status_check(m_opened)
{
}

bool DdsEndpointState::record_statuses(std::uint32_t writer_matches, std::uint32_t reader_matches,
                                       const DdsRefusal& writer, const DdsRefusal& reader) noexcept
{
  m_writer_matches = writer_matches;
  m_reader_matches = reader_matches;
  if (!m_discovered_at && m_writer_matches >= m_expected_matches &&
      m_reader_matches >= m_expected_matches) {
    m_discovered_at = Clock::now();
  }
  if (writer.refused || reader.refused) {
    try {
      if (writer.refused)
        describe_incompatibility(writer, true);
      if (reader.refused)
        describe_incompatibility(reader, false);
    } catch (...) {
      // Out of memory while wording it: the run still ends, without the words.
    }
    m_incompatible = true;
  }
  m_next_status_check = Clock::now() + status_interval;
  return !m_incompatible;
}

void DdsEndpointState::describe_incompatibility(const DdsRefusal& refusal, bool on_writer)
{
  const std::string self = m_publisher ? "this publisher" : "this subscriber";
  const std::string peer = m_publisher ? "a subscriber" : "the publisher";
  const std::string& topic = on_writer == m_publisher ? m_data_topic_name : m_echo_topic_name;
  std::string why;
  if (refusal.reliability) {
    const char* own = reliability_name(m_qos.reliability);
    const char* other = reliability_name(m_qos.reliability == QosChoice::Reliability::reliable
                                             ? QosChoice::Reliability::best_effort
                                             : QosChoice::Reliability::reliable);
    why = peer + " is " + other + " and " + self + " " + own + " (on " + topic + " " + peer +
          "'s " + (on_writer ? "reader requests " : "writer offers ") + other + ", " + self +
          "'s " + (on_writer ? "writer offers " : "reader requests ") + own +
          "): DDS does not match them; give every process the same " + m_words.reliability_fix;
  } else {
    why = "a peer on " + topic + " has an incompatible " + refusal.policy + " QoS (" + self + ": " +
          describe(m_qos) + ", volatile): DDS does not match them";
  }
  if (std::find(m_diagnoses.begin(), m_diagnoses.end(), why) == m_diagnoses.end())
    m_diagnoses.push_back(why);
}

void DdsEndpointState::linger_if_incompatible() const
{
  // The peer learns of the mismatch only from our endpoints' discovery, which may reach it
  // after we noticed: stay a moment, so that it names the mismatch too instead of waiting for
  // its --wait.
  if (m_incompatible)
    std::this_thread::sleep_for(incompatible_linger);
}

std::string DdsEndpointState::qos_note(std::int32_t keep_all) const
{
  return "QoS " + describe(m_qos) + ", volatile, on both topics" +
         (m_qos.history == QosChoice::History::keep_all
              ? " (keep-all holds at most " + std::to_string(keep_all) + " samples per history: -q)"
              : std::string());
}

std::string DdsEndpointState::notify_note(const char* meaning) const
{
  return std::string("notification: --") + m_words.transport + "-notify " + notify_name(m_notify) +
         " (" + meaning + ")";
}

std::string DdsEndpointState::topics_note() const
{
  return m_publisher ? "writes " + m_data_topic_name + ", reads " + m_echo_topic_name
                     : "reads " + m_data_topic_name + ", writes " + m_echo_topic_name;
}

EndpointFacts DdsEndpointState::common_facts() const
{
  EndpointFacts facts;
  facts.transport = m_words.transport;
  facts.local_addresses.push_back((m_publisher ? m_data_topic_name : m_echo_topic_name) +
                                  " (writer)");
  facts.local_addresses.push_back((m_publisher ? m_echo_topic_name : m_data_topic_name) +
                                  " (reader)");
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.notes = m_notes;
  if (m_discovered_at)
    facts.discovery_seconds = std::chrono::duration<double>(*m_discovered_at - m_opened).count();
  facts.notes.push_back("matched when last looked: the writer " + std::to_string(m_writer_matches) +
                        " remote reader(s), the reader " + std::to_string(m_reader_matches) +
                        " remote writer(s)");
  if (m_notify == DdsNotify::listener)
    facts.notes.push_back(std::to_string(m_delivered_by_listener) + " of " +
                          std::to_string(m_delivered_by_listener + m_delivered_by_core) +
                          " samples handed over on " + m_words.receive_thread +
                          " receive thread (the rest came while netprof was not waiting in a "
                          "blocking receive, and its own thread took them); it woke netprof's "
                          "thread " +
                          std::to_string(m_core_wakes) +
                          " times, for what that thread had to act on (the run's end, a probe "
                          "it could not send next itself)");
  facts.diagnoses = m_diagnoses;
  if (!m_discovered_at && !m_incompatible)
    facts.diagnoses.push_back(
        "discovery never completed: the writer matched " + std::to_string(m_writer_matches) +
        " and the reader " + std::to_string(m_reader_matches) + " of the " +
        std::to_string(m_expected_matches) + " remote endpoint(s) expected on each topic (same " +
        m_words.same_everywhere + " on every process?)");
  return facts;
}

} // namespace netprof::transport_common
