#include "core/roles/joining.hpp"

#include <random>

namespace netprof {

namespace {

std::uint32_t random_instance_tag()
{
  std::random_device device;
  std::uint32_t tag = 0;
  while (tag == 0) // 0 means "no tag"
    tag = device() ^ static_cast<std::uint32_t>(Clock::now().time_since_epoch().count());
  return tag;
}

} // namespace

Joining::Joining(std::uint32_t id, std::uint32_t instance)
    : m_id(id), m_instance(instance != 0 ? instance : random_instance_tag())
{
}

bool Joining::hello_due(const SubscriberRun& run, Clock::time_point now) noexcept
{
  if ((run.acknowledged && !m_seeking) || now < m_next_hello)
    return false;
  m_next_hello = now + hello_interval;
  return true;
}

wire::Header Joining::hello(Clock::time_point now) const noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::hello;
  header.sender_id = m_id;
  // Run id 0: "take me into your run". A hello is only sent without a run, or to find a
  // publisher when ours fell silent; a live publisher of our run acknowledges either way.
  header.run_id = 0;
  header.record_count = m_instance;
  wire::carry_secret(header, m_cookie);
  header.sent_ns = to_wire_ns(now);
  return header;
}

// A predecessor's stray answers end when it dies, before we are taken in.
bool Joining::addressed_to_us(const wire::Header& header, const SubscriberRun& run) noexcept
{
  if (header.sequence != m_id)
    return false;
  const std::uint32_t instance = wire::instance_tag(header);
  if (instance == m_instance)
    return true;
  // Only an acknowledgement of our own run tells of a clash: one of another run (replayed, or
  // from a second run on this medium) is foreign, whatever its MAC.
  if (instance != 0 && run.acknowledged && header.run_id == run.run_id && m_other_instance == 0)
    m_other_instance = instance;
  return false;
}

ChallengeAnswer Joining::on_challenge(const wire::Header& header, const SubscriberRun& run) noexcept
{
  ChallengeAnswer answer;
  // Challenges go to one address, or on a shared medium to everyone: another subscriber's is
  // no concern of ours.
  const bool ours = header.sequence == m_id && wire::instance_tag(header) == m_instance;
  if (run.acknowledged && !m_seeking) {
    // Our publisher has taken us in. It gives us one cookie, the one we echoed last: another
    // one for us is another publisher's, answering a hello it heard on the same medium.
    answer.other_publisher = ours && wire::carried_secret(header) != m_cookie;
    return answer;
  }
  if (header.sequence == 0) {
    // An invitation (wire.hpp): our publisher, when we were given only our own address. The
    // first to call is taken; a transport that already sends to it, or to everyone, ignores
    // this.
    answer.adopt_sender = !m_publisher_adopted;
    answer.hello = true;
    return answer;
  }
  if (!ours)
    return answer;
  m_cookie = wire::carried_secret(header);
  answer.hello = true; // at once: the handshake costs one round trip more, not a hello interval
  return answer;
}

RunTaking Joining::take_run(const wire::Header& header, const SubscriberRun& run) noexcept
{
  // Only a hello_ack addressed to us starts a run: it proves a publisher took this process as
  // its subscriber. A stray or stale datagram of some other run, or another subscriber's
  // acknowledgement on a shared medium, proves nothing.
  if (header.kind != wire::MessageKind::hello_ack || header.run_id == 0 ||
      !addressed_to_us(header, run))
    return RunTaking::refused;
  if (run.run_id == 0)
    return RunTaking::first;
  // While our publisher talks, an acknowledgement from another one (two publishers on one
  // medium both answering our first hello) does not take us away from it.
  if (!m_seeking)
    return RunTaking::other_publisher;
  return RunTaking::restarted_publisher;
}

} // namespace netprof
