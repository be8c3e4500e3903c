#pragma once

#include "core/roles/subscriber_run.hpp"

#include <netprof/clock.hpp>
#include <netprof/wire.hpp>

#include <cstdint>

namespace netprof {

// What a subscriber does about a challenge or an invitation, once decided.
struct ChallengeAnswer {
  bool other_publisher = false; // a second publisher on the medium answered us
  bool adopt_sender = false;    // take the invitation's sender as our publisher
  bool hello = false;           // say hello at once
};

// What an acknowledgement of a run other than ours does to the subscriber.
enum class RunTaking {
  refused,             // proves nothing: not a hello_ack to us, or of no run
  first,               // the first publisher to take us in
  other_publisher,     // a second publisher answered while ours talks: it is not taken
  restarted_publisher, // ours went silent and a new one answered: its run replaces ours
};

// The subscriber's side of membership, as Membership is the publisher's: who it is (id and
// instance tag), the handshake (hellos with the last challenge's cookie, the invitation),
// when to say hello, and whether a publisher's answer is addressed to this process. Decides
// only; the subscriber sends and keeps the run.
class Joining {
public:
  static constexpr auto hello_interval = std::chrono::milliseconds(100);

  // `instance` 0 picks a random tag (outside any measured loop: random_device may open a file).
  explicit Joining(std::uint32_t id, std::uint32_t instance = 0);

  std::uint32_t id() const noexcept { return m_id; }
  std::uint32_t instance() const noexcept { return m_instance; }
  // Another live process answers to our id: a publisher acknowledged it in our run.
  bool id_clash() const noexcept { return m_other_instance != 0; }

  // Our publisher is silent: hellos ask any publisher to take us (SubscriberDeadlines says when).
  bool seeking() const noexcept { return m_seeking; }
  void set_seeking(bool seeking) noexcept { m_seeking = seeking; }

  // Whether a hello is due at `now`; if so, the next one is due a hello interval later.
  bool hello_due(const SubscriberRun& run, Clock::time_point now) noexcept;
  // The hello to send: run id 0 ("take me into your run") and the last cookie.
  wire::Header hello(Clock::time_point now) const noexcept;

  // A publisher's acknowledgement names the process it answers by its instance tag; one that
  // names our id with another tag, in our run once we were acknowledged, tells of a clash.
  bool addressed_to_us(const wire::Header& header, const SubscriberRun& run) noexcept;
  ChallengeAnswer on_challenge(const wire::Header& header, const SubscriberRun& run) noexcept;
  // What the transport did with an invitation's sender (adopt_peer's answer).
  void publisher_adopted(bool adopted) noexcept { m_publisher_adopted = adopted; }
  RunTaking take_run(const wire::Header& header, const SubscriberRun& run) noexcept;

private:
  const std::uint32_t m_id;
  const std::uint32_t m_instance; // this process's instance tag (wire.hpp)
  Clock::time_point m_next_hello{};
  bool m_seeking = false;
  bool m_publisher_adopted = false;   // an invitation's sender was taken as our publisher
  std::uint64_t m_cookie = 0;         // the last challenge's, echoed in every hello (wire.hpp)
  std::uint32_t m_other_instance = 0; // another live process answering to our id, once seen
};

} // namespace netprof
