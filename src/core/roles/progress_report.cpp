#include "core/roles/progress_report.hpp"

namespace netprof {

ProgressReport::ProgressReport(const ControlAuthentication& authentication)
    : m_authentication(authentication), m_message(authentication.tag_room())
{
}

void ProgressReport::start_run(const SubscriberRun& run) noexcept
{
  const bool stream = run.described && run.description.ping_pong == 0;
  m_count_wanted = stream ? run.description.count_received : 0;
  m_last_sent = {};
}

std::span<const std::byte> ProgressReport::message(const SubscriberRun& run, const Joining& joining,
                                                   Clock::time_point now) noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::progress;
  header.sender_id = joining.id();
  header.run_id = run.run_id;
  header.sequence = run.sequences.unique();
  header.record_count = joining.instance();
  header.sent_ns = to_wire_ns(now);
  m_last_sent = now;
  return m_authentication.seal(m_message, header);
}

} // namespace netprof
