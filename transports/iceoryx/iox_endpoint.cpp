#include "iox_endpoint.hpp"

#include "roudi.hpp"

#include <netprof/errors.hpp>

#include <iceoryx_posh/mepoo/chunk_header.hpp>
#include <iceoryx_versions.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

namespace netprof::iox_parts {

namespace {

using iox::popo::AllocationError;

// How long a subscriber's open waits for discovery (RouDi's loop runs every 100 ms) to connect
// it both ways to a publisher that is there; one that is not yet there costs this once.
constexpr auto connect_wait = std::chrono::seconds(1);
// How often a receive looks whether RouDi still answers (a connect() on its socket).
constexpr auto roudi_check_interval = std::chrono::milliseconds(250);
// Zero-timeout receives between two looks at the clock, to keep that off the spin loop.
constexpr unsigned looks_per_clock_read = 1024;
// What a probing loan may ask: iceoryx sizes chunks in uint32_t.
constexpr std::size_t largest_probe = std::size_t{1} << 31;

// The user header of every chunk this endpoint sends (IoxEndpoint's comment says why).
struct FillMark {
  std::uint64_t lender = 0; // 0: holds nothing of ours
  std::uint64_t size = 0;
};

FillMark& fill_mark(void* payload) noexcept
{
  return *static_cast<FillMark*>(iox::mepoo::ChunkHeader::fromUserPayload(payload)->userHeader());
}

// Loans a chunk laid out as every lent chunk of ours is: the fill mark, then the message.
iox::cxx::expected<void*, AllocationError> loan_marked(iox::popo::UntypedPublisher& publisher,
                                                       std::size_t size) noexcept
{
  return publisher.loan(static_cast<std::uint32_t>(size), iox::CHUNK_DEFAULT_USER_PAYLOAD_ALIGNMENT,
                        sizeof(FillMark), alignof(FillMark));
}

// Loans a chunk for a copy (send()): the message right after iceoryx's 40-byte chunk header,
// where a mark would lie. A small message then shares the header's cache line: behind a mark it
// starts on the next line, and the reader, which reads the chunk header anyway, takes one line
// more from the writer's CPU for every echo.
iox::cxx::expected<void*, AllocationError> loan_plain(iox::popo::UntypedPublisher& publisher,
                                                      std::size_t size) noexcept
{
  return publisher.loan(static_cast<std::uint32_t>(size));
}

// Differs between lenders of this process and of any other, so no one else's chunk bears it;
// never 0. Not secret: only a writer that copied it on purpose could forge a mark.
std::uint64_t fresh_nonce(const void* lender) noexcept
{
  static std::atomic<std::uint64_t> made{0};
  std::uint64_t value = static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()) ^
                        (static_cast<std::uint64_t>(getpid()) << 40) ^
                        reinterpret_cast<std::uintptr_t>(lender) ^ (++made << 20);
  value = (value ^ (value >> 31)) * 0x9e3779b97f4a7c15ull;
  return value == 0 ? 1 : value;
}

iox::capro::ServiceDescription service(const std::string& name, const char* event)
{
  using iox::capro::IdString_t;
  return {IdString_t("netprof"), IdString_t(iox::cxx::TruncateToCapacity, name),
          IdString_t(iox::cxx::TruncateToCapacity, event)};
}

// The largest message RouDi's mempools can give (0: none at all), found by loaning:
// iceoryx says NO_MEMPOOLS_AVAILABLE for a size no mempool has (and reports a SEVERE error,
// which the process's handler, iox_runtime.cpp, lets pass).
std::size_t largest_loan(iox::popo::UntypedPublisher& publisher)
{
  const auto fits = [&](std::size_t size) {
    auto chunk = loan_marked(publisher, size);
    if (chunk.has_error())
      return chunk.get_error() != AllocationError::NO_MEMPOOLS_AVAILABLE;
    publisher.release(chunk.value());
    return true;
  };
  std::size_t low = 0; // fits (0 stands for "nothing")
  std::size_t high = largest_probe;
  if (!fits(1))
    return 0;
  low = 1;
  while (high - low > 1) {
    const std::size_t middle = low + (high - low) / 2;
    (fits(middle) ? low : high) = middle;
  }
  return low;
}

} // namespace

IoxEndpoint::IoxEndpoint(const EndpointSettings& settings)
    : m_lease(RuntimeLease::acquire()), m_publisher(settings.role == Role::publisher),
      m_name(settings.name), m_qos(settings.qos),
      m_requested_buffer_bytes(settings.requested_buffer_bytes), m_fill_nonce(fresh_nonce(this))
{
  const bool block = m_qos.queue_full == QueueFull::block;
  iox::popo::PublisherOptions data_out;
  data_out.historyCapacity = 0;
  data_out.subscriberTooSlowPolicy = block ? iox::popo::ConsumerTooSlowPolicy::WAIT_FOR_CONSUMER
                                           : iox::popo::ConsumerTooSlowPolicy::DISCARD_OLDEST_DATA;
  iox::popo::SubscriberOptions data_in;
  data_in.queueCapacity = m_qos.queue_capacity;
  data_in.historyRequest = m_qos.history_request;
  data_in.queueFullPolicy = block ? iox::popo::QueueFullPolicy::BLOCK_PRODUCER
                                  : iox::popo::QueueFullPolicy::DISCARD_OLDEST_DATA;
  // The back channel never blocks a subscriber: the publisher drains it all the time.
  iox::popo::PublisherOptions back_out;
  back_out.historyCapacity = m_qos.back_channel_history;
  iox::popo::SubscriberOptions back_in;
  back_in.queueCapacity = iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY;
  back_in.historyRequest = m_qos.back_channel_history;

  // Every port and the wait set are a request to RouDi, answered in its discovery loop.
  std::optional<RoudiWatch> watch(std::in_place, "opening its ports", roudi_answer_within,
                                  m_lease->name());
  if (m_publisher) {
    m_sender.emplace(service(m_name, "data"), data_out);
    m_receiver.emplace(service(m_name, "back"), back_in);
  } else {
    m_receiver.emplace(service(m_name, "data"), data_in);
    m_sender.emplace(service(m_name, "back"), back_out);
  }
  m_waitset.emplace();

  watch.reset();

  m_max_message_size = largest_loan(*m_sender);
  if (m_max_message_size == 0)
    throw TransportError("RouDi's mempools give no chunk at all: check its config "
                         "(iox-roudi -c FILE)");

  if (!m_publisher) {
    // Connected both ways before the first hello, when the publisher is there already.
    const auto give_up = Clock::now() + connect_wait;
    while (Clock::now() < give_up &&
           (m_receiver->getSubscriptionState() != iox::SubscribeState::SUBSCRIBED ||
            !m_sender->hasSubscribers()))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  m_notes.push_back(std::string("iceoryx ") + ICEORYX_LATEST_RELEASE_VERSION + ", runtime '" +
                    m_lease->name() + "' registered with the RouDi at " + roudi_socket_path() +
                    "; services netprof/" + m_name + "/data (publisher to subscribers) and " +
                    "netprof/" + m_name + "/back (hellos, echoes, final counters)");
  m_notes.push_back(describe(m_qos));
  m_notes.push_back("largest message: " + std::to_string(m_max_message_size) +
                    " B, the largest chunk RouDi's mempools give (a RouDi config with a larger "
                    "[[segment.mempool]] raises it)");
  m_last_roudi_check = Clock::now();
}

SendOutcome IoxEndpoint::refuse_loan(AllocationError error) noexcept
{
  if (error == AllocationError::RUNNING_OUT_OF_CHUNKS ||
      error == AllocationError::TOO_MANY_CHUNKS_ALLOCATED_IN_PARALLEL) {
    // Every chunk of that size sits in a subscriber's queue: waiting frees one.
    return {SendResult::back_pressured, SendCause::queue_full};
  }
  return {SendResult::failed, SendCause::error};
}

void* IoxEndpoint::loan_chunk(std::size_t size, bool marked, SendOutcome& refusal) noexcept
{
  if (size > m_max_message_size || m_roudi_gone) {
    refusal = {SendResult::failed, SendCause::error};
    return nullptr;
  }
  auto chunk = marked ? loan_marked(*m_sender, size) : loan_plain(*m_sender, size);
  if (chunk.has_error()) {
    refusal = refuse_loan(chunk.get_error());
    return nullptr;
  }
  return chunk.value();
}

SendOutcome IoxEndpoint::send(std::span<const std::byte> message) noexcept
{
  SendOutcome refusal;
  void* chunk = loan_chunk(message.size(), false, refusal);
  if (chunk == nullptr)
    return refusal;
  if (!message.empty())
    std::memcpy(chunk, message.data(), message.size());
  m_sender->publish(chunk);
  return {};
}

Loan IoxEndpoint::claim(std::size_t size) noexcept
{
  Loan loan;
  // Nothing to lend for size 0: a loan is never empty unless refused.
  SendOutcome refusal{SendResult::failed, SendCause::error};
  void* chunk = size == 0 ? nullptr : loan_chunk(size, true, refusal);
  if (chunk == nullptr) {
    loan.refusal = refusal.result;
    loan.cause = refusal.cause;
    return loan;
  }
  FillMark& mark = fill_mark(chunk);
  loan.holds_payload = mark.lender == m_fill_nonce && mark.size == size;
  mark = FillMark{}; // until commit() says what it holds
  loan.bytes = std::span(static_cast<std::byte*>(chunk), size);
  return loan;
}

SendResult IoxEndpoint::commit(const Loan& loan) noexcept
{
  fill_mark(loan.bytes.data()) = FillMark{m_fill_nonce, loan.bytes.size()};
  m_sender->publish(loan.bytes.data());
  return SendResult::sent;
}

void IoxEndpoint::abandon(const Loan& loan) noexcept
{
  m_sender->release(loan.bytes.data()); // unmarked since claim(): holds nothing of ours
}

int IoxEndpoint::drain(MessageSink& sink, int most) noexcept
{
  int delivered = 0;
  for (; delivered < most; ++delivered) {
    auto taken = m_receiver->take();
    if (taken.has_error())
      return taken.get_error() == iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE ? delivered
                                                                                    : -1;
    const void* payload = taken.value();
    const iox::mepoo::ChunkHeader* header = iox::mepoo::ChunkHeader::fromUserPayload(payload);
    const std::size_t size = header->userPayloadSize();
    const auto origin = static_cast<std::uint64_t>(header->originId());
    sink.on_message(Delivery{std::span(static_cast<const std::byte*>(payload), size), 1,
                             size + sizeof(iox::mepoo::ChunkHeader), PeerHandle{origin}});
    m_receiver->release(payload);
  }
  return delivered;
}

bool IoxEndpoint::roudi_still_there() noexcept
{
  if (m_roudi_gone)
    return false;
  const auto now = Clock::now();
  if (now - m_last_roudi_check < roudi_check_interval)
    return true;
  m_last_roudi_check = now;
  std::string why;
  if (roudi_answers(why))
    return true;
  m_roudi_gone = true;
  m_diagnoses.push_back("RouDi stopped answering mid-run (" + why +
                        "): iceoryx cannot go on without it");
  return false;
}

ReceiveResult IoxEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const bool zero = timeout <= Nanoseconds::zero();
  if (!zero || ++m_looks_since_clock >= looks_per_clock_read) {
    m_looks_since_clock = 0;
    if (!roudi_still_there())
      return ReceiveResult::failed;
  }
  int delivered = drain(sink, receive_batch);
  if (delivered != 0 || zero)
    return delivered < 0 ? ReceiveResult::failed
                         : (delivered > 0 ? ReceiveResult::received : ReceiveResult::timed_out);
  // Capped so that Nanoseconds::max() cannot overflow; the core waits in slices anyway.
  const Nanoseconds capped = std::min<Nanoseconds>(timeout, std::chrono::seconds(1));
  // Attached only while waiting: an attached subscriber makes every publish to it signal the
  // wait set's semaphore, which a busy-polling run (zero timeouts) would pay per message. A
  // state, not an event: data that came before the attach ends the wait at once.
  if (m_waitset->attachState(*m_receiver, iox::popo::SubscriberState::HAS_DATA).has_error())
    return ReceiveResult::failed;
  m_waitset->timedWait(
      iox::units::Duration::fromNanoseconds(static_cast<unsigned long long>(capped.count())));
  m_waitset->detachState(*m_receiver, iox::popo::SubscriberState::HAS_DATA);
  delivered = drain(sink, receive_batch);
  if (delivered < 0)
    return ReceiveResult::failed;
  return delivered > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

EndpointFacts IoxEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "iceoryx";
  facts.local_addresses.push_back(
      m_publisher
          ? "publisher of netprof/" + m_name + "/data, subscriber of netprof/" + m_name + "/back"
          : "subscriber of netprof/" + m_name + "/data, publisher of netprof/" + m_name + "/back");
  facts.max_message_size = m_max_message_size;
  facts.size_hint = "RouDi's largest mempool chunk; start iox-roudi with a config (-c FILE, or "
                    "/etc/iceoryx/roudi_config.toml) whose largest [[segment.mempool]] size "
                    "holds netprof's header and the payload";
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.notes = m_notes;
  facts.diagnoses = m_diagnoses;
  return facts;
}

} // namespace netprof::iox_parts
