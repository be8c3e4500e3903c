#pragma once

#include "iox_qos.hpp"
#include "iox_runtime.hpp"

#include <netprof/transport.hpp>

#include <iceoryx_posh/popo/untyped_publisher.hpp>
#include <iceoryx_posh/popo/untyped_subscriber.hpp>
#include <iceoryx_posh/popo/wait_set.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof::iox_parts {

// What the transport derived from the command line for one endpoint.
struct EndpointSettings {
  Role role = Role::publisher;
  std::string name; // --iceoryx NAME: the services' instance
  Qos qos;
  std::size_t requested_buffer_bytes = 0; // -q as given
};

// Two iceoryx services of one instance (NAME): "data", which the publisher publishes and every
// subscriber subscribes to, and "back" the other way (hellos, echoes, final counters; iceoryx
// 2.0 takes many publishers per service). Untyped ports: a message is loaned as a chunk of
// RouDi's shared memory, written in place and published, and on the other side taken, handed
// to the sink where it lies, and released: no copy but the one into the chunk.
// The sender of what arrives is the publishing port's unique id (the chunk header's origin).
//
// It lends its chunks (MessageLender): the core writes a data message straight into a loaned
// chunk, and nothing is copied at all. Each chunk it lends carries a small user header, its
// fill mark (this lender's nonce and the size committed), so a chunk that comes back from
// RouDi's pool is known to hold the payload written the last time: any other writer's message
// starts where the mark lies (a chunk without a user header puts its payload there, as send()'s
// copies do), so a chunk anyone else wrote into no longer bears our mark.
class IoxEndpoint final : public Endpoint, public MessageLender {
public:
  static constexpr int receive_batch = 32;

  // Registers with RouDi (through the process's runtime lease) and makes the ports; throws
  // TransportError when RouDi is absent or refuses.
  explicit IoxEndpoint(const EndpointSettings& settings);

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

private:
  Loan claim(std::size_t size) noexcept override;
  SendResult commit(const Loan& loan) noexcept override;
  void abandon(const Loan& loan) noexcept override;
  // A chunk of `size` bytes, laid out with the fill mark when `marked` (a lent one); null, and
  // `refusal` set, when none.
  void* loan_chunk(std::size_t size, bool marked, SendOutcome& refusal) noexcept;
  // Why a loan failed, as a refusal: out of chunks is back-pressure (waiting frees one).
  SendOutcome refuse_loan(iox::popo::AllocationError error) noexcept;

  // Hands at most `most` waiting messages to the sink; -1 when iceoryx refuses a take.
  int drain(MessageSink& sink, int most) noexcept;
  // False once RouDi stopped answering (looked at every quarter second at most).
  bool roudi_still_there() noexcept;

  std::shared_ptr<RuntimeLease> m_lease; // first: the ports go before the runtime
  bool m_publisher;
  std::string m_name;
  Qos m_qos;
  std::optional<iox::popo::UntypedPublisher> m_sender;
  std::optional<iox::popo::UntypedSubscriber> m_receiver;
  std::optional<iox::popo::WaitSet<1>> m_waitset;
  std::size_t m_max_message_size = 0;
  std::size_t m_requested_buffer_bytes = 0;
  std::vector<std::string> m_notes;
  std::vector<std::string> m_diagnoses;
  const std::uint64_t m_fill_nonce; // this lender's mark in the chunks it committed
  unsigned m_looks_since_clock = 0;
  Clock::time_point m_last_roudi_check{};
  bool m_roudi_gone = false;
};

} // namespace netprof::iox_parts
