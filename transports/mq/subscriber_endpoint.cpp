#include "back_frame.hpp"
#include "mq_endpoint.hpp"
#include "receiving.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <mqueue.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace netprof::mq {

namespace {

// How often a subscriber looks whether its publisher's queue is still the one under the name
// (a publisher restarted, or gone): while it waits, and while a send is back-pressured; when
// busy-polling, every this many empty polls instead (no clock read per poll).
constexpr auto health_interval = std::chrono::milliseconds(100);
constexpr std::uint32_t health_polls = 1u << 16;

QueuePlan subscriber_plan(const EndpointSettings& settings, std::uint32_t id)
{
  return {subscriber_queue(settings.name, id), settings.depth, data_message_limit(settings.limits),
          "another subscriber -i " + std::to_string(id) + " runs with --mq " + settings.name +
              " (give each subscriber its own -i)"};
}

// Errors that say the name is not ours to use, as opposed to a passing shortage
// (descriptors, memory) that the next look may not meet.
bool refused(const PeerQueue& queue) noexcept
{
  return queue.status == PeerQueue::Status::foreign ||
         (queue.status == PeerQueue::Status::failed &&
          (queue.error == EACCES || queue.error == EPERM));
}

} // namespace

SubscriberEndpoint::SubscriberEndpoint(EndpointSettings settings, std::uint32_t id)
    : m_settings(std::move(settings)), m_id(id), m_publisher_name(publisher_queue(m_settings.name)),
      m_queue(subscriber_plan(m_settings, id), m_settings.limits), m_buffer(m_queue.message_size()),
      m_frame(m_settings.limits.msgsize_max)
{
  write_frame(m_frame.data(), m_id);
  if (!refresh_publisher())
    throw TransportError(peer_refusal(m_publisher_name, m_refused));
  m_next_check = Clock::now() + health_interval;
}

SubscriberEndpoint::~SubscriberEndpoint()
{
  close_publisher();
}

void SubscriberEndpoint::close_publisher() noexcept
{
  if (m_publisher != -1)
    mq_close(m_publisher);
  m_publisher = -1;
}

bool SubscriberEndpoint::refresh_publisher() noexcept
{
  if (m_failed)
    return false;
  PeerQueue queue = open_peer_queue(m_publisher_name.c_str(), O_WRONLY);
  switch (queue.status) {
  case PeerQueue::Status::absent:
    close_publisher(); // it left: sends go nowhere until a publisher comes again
    return true;
  case PeerQueue::Status::opened:
    if (m_publisher != -1 && queue.identity == m_publisher_identity) {
      mq_close(queue.fd);
      return true;
    }
    close_publisher();
    m_publisher = queue.fd;
    m_publisher_identity = queue.identity;
    m_publisher_message_size = queue.message_size;
    m_publisher_depth = queue.depth;
    ++m_attaches;
    return true;
  case PeerQueue::Status::foreign:
  case PeerQueue::Status::failed:
    break;
  }
  if (!refused(queue))
    return true;
  close_publisher();
  m_refused = queue;
  m_failed = true;
  return false;
}

bool SubscriberEndpoint::gave_up() noexcept
{
  if (!m_failed)
    return false;
  if (!m_announced) {
    m_announced = true;
    try {
      std::cerr << ("netprof: " + peer_refusal(m_publisher_name, m_refused) + "\n");
    } catch (...) {
    }
  }
  return true;
}

bool SubscriberEndpoint::housekeeping() noexcept
{
  const auto now = Clock::now();
  if (now >= m_next_check) {
    m_next_check = now + health_interval;
    refresh_publisher();
  }
  return !gave_up();
}

SendOutcome SubscriberEndpoint::send(std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  const std::size_t framed = frame_bytes + message.size();
  if (framed > m_frame.size())
    return failure;
  if (m_publisher == -1) {
    if (!refresh_publisher())
      return failure;
    if (m_publisher == -1)
      return {}; // no publisher yet: like a datagram nobody listens to
  }
  if (framed > m_publisher_message_size)
    return failure;
  std::memcpy(m_frame.data() + frame_bytes, message.data(), message.size());
  if (mq_send(m_publisher, reinterpret_cast<const char*>(m_frame.data()), framed, 0) == 0)
    return {};
  if (errno != EAGAIN && errno != EINTR)
    return failure;
  const SendCause cause = errno == EINTR ? SendCause::interrupted : SendCause::queue_full;
  // Full: a publisher that died leaves its queue full for good, so look now and then.
  const auto now = Clock::now();
  if (now >= m_next_pressure_check) {
    m_next_pressure_check = now + health_interval;
    refresh_publisher();
  }
  return {SendResult::back_pressured, cause};
}

ReceiveResult SubscriberEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const ReceiveResult result = receive_from(
      m_queue, m_buffer, m_wait, timeout,
      [this, &sink](std::span<const std::byte> message, unsigned priority) {
        if (priority != 0) {
          ++m_strangers; // netprof sends at priority 0; this was put there to jump ahead
          return false;
        }
        sink.on_message(Delivery{message, 1, message.size(), PeerHandle{}});
        return true;
      },
      [this] { return housekeeping(); });
  if (result == ReceiveResult::received)
    return result;
  if (timeout <= Nanoseconds::zero() && ++m_idle_polls % health_polls == 0)
    refresh_publisher();
  return gave_up() ? ReceiveResult::failed : result;
}

EndpointFacts SubscriberEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "mq";
  facts.local_addresses.push_back(m_queue.name());
  facts.peer_addresses.push_back(m_publisher_name +
                                 (m_publisher != -1 ? "" : " (not open: not there yet)"));
  // The largest data message it takes; what it sends back is the publisher's queue's affair.
  facts.max_message_size = m_queue.message_size();
  facts.size_hint = size_hint(m_settings.limits);
  facts.requested_buffer_bytes = m_settings.requested_bytes;
  facts.granted_receive_buffer_bytes = m_queue.depth() * m_queue.message_size();
  facts.granted_send_buffer_bytes = m_publisher_depth * m_publisher_message_size;
  add_common_notes(facts, m_settings, m_queue);
  if (m_attaches > 1)
    facts.notes.push_back("opened the publisher's queue " + std::to_string(m_attaches) +
                          " times (a publisher restarted under the name)");
  if (m_strangers > 0)
    facts.notes.push_back(std::to_string(m_strangers) + " message(s) on " + m_queue.name() +
                          " sent with a priority other than 0, not by netprof: dropped");
  if (m_failed)
    facts.notes.push_back("gave up: " + peer_refusal(m_publisher_name, m_refused));
  return facts;
}

} // namespace netprof::mq
