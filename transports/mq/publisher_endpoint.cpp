#include "abandoned_queues.hpp"
#include "back_frame.hpp"
#include "mq_endpoint.hpp"
#include "receiving.hpp"

#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <mqueue.h>
#include <sys/file.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace netprof::mq {

namespace {

// While a subscriber's queue stays full, how often the publisher looks whether a live process
// still holds it (a flock attempt per full queue).
constexpr auto reap_interval = std::chrono::milliseconds(1);

std::size_t back_message_size(const KernelLimits& limits, std::size_t largest_control_message)
{
  if (largest_control_message == 0)
    return limits.msgsize_max;
  const std::size_t wanted = largest_control_message + frame_bytes;
  if (wanted > limits.msgsize_max)
    throw TransportError("fs.mqueue.msgsize_max is " + std::to_string(limits.msgsize_max) +
                         " B, too small for netprof's control messages (" + std::to_string(wanted) +
                         " B with their frame): raise it with sysctl "
                         "-w fs.mqueue.msgsize_max=" +
                         std::to_string(wanted));
  return wanted;
}

QueuePlan publisher_plan(const EndpointSettings& settings, std::size_t largest_control_message)
{
  return {publisher_queue(settings.name), settings.depth,
          back_message_size(settings.limits, largest_control_message),
          "another publisher runs with --mq " + settings.name + " (choose another NAME)"};
}

std::string refusal_text(const std::string& name, const PeerQueue& queue, bool too_small,
                         std::size_t needed)
{
  if (too_small)
    return "subscriber queue " + name + " takes messages of at most " +
           std::to_string(queue.message_size) + " B, fewer than this publisher's " +
           std::to_string(needed) +
           " B (fs.mqueue.msgsize_max changed since it was made): "
           "not used";
  return peer_refusal(name, queue) + ": not used";
}

} // namespace

PublisherEndpoint::PublisherEndpoint(EndpointSettings settings, std::size_t largest_control_message)
    : m_settings(std::move(settings)),
      m_queue(publisher_plan(m_settings, largest_control_message), m_settings.limits),
      m_buffer(m_queue.message_size()), m_peers(peer_capacity), m_peer_names(m_settings.name),
      m_max_message(data_message_limit(m_settings.limits)), m_owed_message(m_max_message)
{
  // Killed subscribers of this NAME left their queues; a local pair's or a script's run (a
  // pair-* NAME) also clears what earlier killed runs of that kind left.
  m_removed = remove_abandoned_queues(subscriber_queue_prefix(m_settings.name));
  if (m_settings.name.rfind(transport_common::pair_prefix, 0) == 0) {
    const std::vector<std::string> more =
        remove_abandoned_queues(std::string("netprof-") + transport_common::pair_prefix);
    m_removed.insert(m_removed.end(), more.begin(), more.end());
  }
}

PublisherEndpoint::~PublisherEndpoint()
{
  for (std::size_t i = 0; i < m_peer_count; ++i)
    mq_close(m_peers[i].fd);
}

SendOutcome PublisherEndpoint::send(std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  if (message.size() > m_max_message)
    return failure;
  if (m_owed && !pay_owed())
    return pushed_back();
  const char* bytes = reinterpret_cast<const char*>(message.data());
  std::size_t taken = 0;
  std::size_t full = 0;
  for (std::size_t i = 0; i < m_peer_count; ++i) {
    Peer& peer = m_peers[i];
    peer.owed = false;
    if (mq_send(peer.fd, bytes, message.size(), 0) == 0) {
      ++taken;
    } else if (errno == EAGAIN || errno == EINTR) {
      peer.owed = true;
      ++full;
    }
  }
  if (full == 0)
    return taken > 0 || m_peer_count == 0 ? SendOutcome{} : failure;
  if (taken == 0)
    return pushed_back();
  // Some queues took it: it counts as sent, and the full ones get it before anything else.
  std::memcpy(m_owed_message.data(), message.data(), message.size());
  m_owed_size = message.size();
  m_owed = true;
  return {};
}

SendOutcome PublisherEndpoint::send_to(PeerHandle handle,
                                       std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  constexpr SendOutcome full{SendResult::back_pressured, SendCause::queue_full};
  if (message.size() > m_max_message)
    return failure;
  if (m_owed && !pay_owed())
    return pushed_back();
  const std::optional<std::uint32_t> id = sender_of(handle);
  const auto end = m_peers.begin() + static_cast<std::ptrdiff_t>(m_peer_count);
  const auto peer =
      std::find_if(m_peers.begin(), end, [&](const Peer& p) { return id && p.id == *id; });
  if (peer == end)
    return {}; // dropped as dead, or never a peer: nobody hears it
  if (mq_send(peer->fd, reinterpret_cast<const char*>(message.data()), message.size(), 0) == 0)
    return {};
  if (errno != EAGAIN && errno != EINTR)
    return failure;
  if (errno == EAGAIN && reap_due() &&
      drop_if_unheld(static_cast<std::size_t>(peer - m_peers.begin())))
    return {}; // its subscriber is gone: nobody hears it
  return full;
}

SendOutcome PublisherEndpoint::flush() noexcept
{
  if (m_owed)
    pay_owed();
  return {};
}

bool PublisherEndpoint::pay_owed() noexcept
{
  bool paid = true;
  for (std::size_t i = 0; i < m_peer_count; ++i) {
    Peer& peer = m_peers[i];
    if (!peer.owed)
      continue;
    const int sent =
        mq_send(peer.fd, reinterpret_cast<const char*>(m_owed_message.data()), m_owed_size, 0);
    if (sent != 0 && (errno == EAGAIN || errno == EINTR))
      paid = false;
    else
      peer.owed = false;
  }
  m_owed = !paid;
  return paid;
}

// Nobody took the message (or a full queue still owes the last one): the core waits and sends
// it again. A full queue that no live process holds would never drain, so now and then the
// publisher looks, and drops such subscribers (killed, or gone without their queue).
SendOutcome PublisherEndpoint::pushed_back() noexcept
{
  if (reap_due()) {
    for (std::size_t i = m_peer_count; i-- > 0;) {
      if (m_peers[i].owed)
        drop_if_unheld(i);
    }
    m_owed = m_owed && std::any_of(m_peers.begin(),
                                   m_peers.begin() + static_cast<std::ptrdiff_t>(m_peer_count),
                                   [](const Peer& peer) { return peer.owed; });
  }
  return m_peer_count > 0 ? SendOutcome{SendResult::back_pressured, SendCause::queue_full}
                          : SendOutcome{};
}

bool PublisherEndpoint::reap_due() noexcept
{
  const auto now = Clock::now();
  if (now < m_next_reap)
    return false;
  m_next_reap = now + reap_interval;
  return true;
}

bool PublisherEndpoint::drop_if_unheld(std::size_t index) noexcept
{
  if (flock(m_peers[index].fd, LOCK_EX | LOCK_NB) != 0)
    return false;
  drop_peer(index);
  ++m_dead_peers;
  return true;
}

void PublisherEndpoint::drop_peer(std::size_t index) noexcept
{
  mq_close(m_peers[index].fd);
  m_peers[index] = m_peers[m_peer_count - 1];
  --m_peer_count;
}

bool PublisherEndpoint::deliver(std::span<const std::byte> frame, unsigned priority,
                                MessageSink& sink) noexcept
{
  // netprof sends at priority 0: anything else was put there by someone else, to jump ahead.
  const std::uint32_t sender = priority == 0 ? frame_sender(frame) : 0;
  if (sender == 0) {
    ++m_strangers;
    return false;
  }
  sink.on_message(Delivery{frame.subspan(frame_bytes), 1, frame.size(), handle_of(sender)});
  return true;
}

ReceiveResult PublisherEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  return receive_from(
      m_queue, m_buffer, m_wait, timeout,
      [this, &sink](std::span<const std::byte> frame, unsigned priority) {
        return deliver(frame, priority, sink);
      },
      [] { return true; });
}

PeerQueue PublisherEndpoint::open_subscriber_queue(std::uint32_t id) noexcept
{
  PeerQueue queue = open_peer_queue(m_peer_names.for_id(id), O_WRONLY);
  bool too_small = false;
  if (queue.status == PeerQueue::Status::opened) {
    if (queue.message_size >= m_max_message)
      return queue;
    mq_close(queue.fd);
    queue.fd = -1;
    queue.status = PeerQueue::Status::failed;
    queue.error = EMSGSIZE;
    too_small = true;
  }
  if (queue.status != PeerQueue::Status::absent) {
    ++m_refusals;
    m_last_refusal = {id, queue, too_small};
  }
  return queue;
}

ReplyOutcome PublisherEndpoint::reply(PeerHandle sender, std::span<const std::byte> message,
                                      PeerFate fate) noexcept
{
  if (fate == PeerFate::adopt) {
    const bool adopted = adopt(sender);
    return {send(message), adopted};
  }
  return {answer_alone(sender, message), false};
}

bool PublisherEndpoint::adopt(PeerHandle sender) noexcept
{
  const std::optional<std::uint32_t> id = sender_of(sender);
  if (!id)
    return false;
  PeerQueue queue = open_subscriber_queue(*id);
  if (queue.status != PeerQueue::Status::opened)
    return false;
  const auto end = m_peers.begin() + static_cast<std::ptrdiff_t>(m_peer_count);
  const auto known = std::find_if(m_peers.begin(), end, [&](const Peer& p) { return p.id == *id; });
  if (known != end) {
    // The same queue, or the queue of a subscriber restarted with this id: send to that one.
    std::swap(known->fd, queue.fd);
    known->identity = queue.identity;
    mq_close(queue.fd);
    return true;
  }
  if (m_peer_count == peer_capacity) {
    mq_close(queue.fd);
    ++m_ignored_peers;
    return false;
  }
  m_peers[m_peer_count++] = Peer{*id, queue.fd, queue.identity, false}; // owes nothing yet
  return true;
}

SendOutcome PublisherEndpoint::answer_alone(PeerHandle sender,
                                            std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  // Always by name, never through a peer's kept descriptor: a subscriber restarted with the
  // same id reads a new queue, and its challenge must reach that one.
  const std::optional<std::uint32_t> id = sender_of(sender);
  if (!id)
    return failure;
  const PeerQueue queue = open_subscriber_queue(*id);
  if (queue.status != PeerQueue::Status::opened)
    return failure;
  const int sent =
      mq_send(queue.fd, reinterpret_cast<const char*>(message.data()), message.size(), 0);
  const int error = errno;
  mq_close(queue.fd);
  // Not retried: the subscriber says hello again until it is answered.
  return sent == 0 ? SendOutcome{}
                   : SendOutcome{SendResult::failed,
                                 error == EAGAIN ? SendCause::queue_full : SendCause::error};
}

EndpointFacts PublisherEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "mq";
  facts.local_addresses.push_back(m_queue.name());
  for (std::size_t i = 0; i < m_peer_count; ++i)
    facts.peer_addresses.push_back(subscriber_queue(m_settings.name, m_peers[i].id));
  facts.max_message_size = m_max_message;
  facts.size_hint = size_hint(m_settings.limits);
  facts.requested_buffer_bytes = m_settings.requested_bytes;
  facts.granted_send_buffer_bytes = m_queue.depth() * m_max_message;
  facts.granted_receive_buffer_bytes = m_queue.depth() * m_queue.message_size();
  facts.capabilities.addresses_peers_one_by_one = true;
  add_common_notes(facts, m_settings, m_queue);
  for (const std::string& removed : m_removed)
    facts.notes.push_back("removed " + removed + ", left by a process that was killed");
  const auto count = [&](std::uint64_t value, const std::string& what) {
    if (value > 0)
      facts.notes.push_back(std::to_string(value) + " " + what);
  };
  count(m_dead_peers, "subscriber(s) dropped: their queue was full and no live process held it");
  count(m_strangers, "message(s) on " + m_queue.name() +
                         " were not netprof's (no frame, or a priority other than 0): dropped");
  count(m_ignored_peers, "subscriber(s) ignored beyond the limit of 1024");
  if (m_refusals > 0) {
    const std::string name = subscriber_queue(m_settings.name, m_last_refusal.id);
    facts.diagnoses.push_back(
        refusal_text(name, m_last_refusal.queue, m_last_refusal.too_small, m_max_message));
    count(m_refusals, "subscriber queue(s) refused, the last: " + facts.diagnoses.back());
  }
  return facts;
}

} // namespace netprof::mq
