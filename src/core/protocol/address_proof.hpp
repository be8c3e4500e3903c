#pragma once

// The publisher's half of address proof (wire.hpp, "Address proof"): cookies that only this
// run's publisher can make, bound to the address a hello came from, its id and its instance
// tag, and the end token its acknowledgements hand to proven subscribers. A cookie costs one
// keyed hash (SipHash-2-4) and needs no state per sender, so a flood of hellos allocates
// nothing: the publisher remembers no one until the cookie comes back.

#include <netprof/transport.hpp>

#include <array>
#include <cstdint>

namespace netprof {

class AddressProof {
public:
  // Draws this run's secret and end token from the system's random source.
  AddressProof();

  // Never 0, which a hello uses for "no cookie yet".
  std::uint64_t cookie(PeerHandle sender, std::uint32_t id, std::uint32_t instance) const noexcept;

  bool proves(std::uint64_t echoed, PeerHandle sender, std::uint32_t id,
              std::uint32_t instance) const noexcept
  {
    return echoed != 0 && echoed == cookie(sender, id, instance);
  }

  // What END and final_ack carry so that a subscriber knows they come from its publisher.
  std::uint64_t end_token() const noexcept { return m_end_token; }

private:
  std::array<unsigned char, 16> m_key{};
  std::uint64_t m_end_token = 0;
};

// libsodium's one-time setup, before any of its calls; throws TransportError when the system
// has no random source.
void initialise_sodium();

// Nonzero random 64 bits from the system's random source; for identifiers and tokens drawn at
// setup, never in a measured loop.
std::uint64_t random_nonzero_u64();

} // namespace netprof
