#include "core/protocol/address_proof.hpp"

#include <netprof/errors.hpp>

#include <sodium.h>

#include <cstring>

namespace netprof {

void initialise_sodium()
{
  // Idempotent and thread-safe once it has succeeded; -1 only when no random source works.
  if (sodium_init() < 0)
    throw TransportError("cannot initialise libsodium: no system random source");
}

std::uint64_t random_nonzero_u64()
{
  initialise_sodium();
  std::uint64_t value = 0;
  while (value == 0)
    randombytes_buf(&value, sizeof value);
  return value;
}

AddressProof::AddressProof()
{
  initialise_sodium();
  static_assert(sizeof m_key == crypto_shorthash_KEYBYTES);
  crypto_shorthash_keygen(m_key.data());
  m_end_token = random_nonzero_u64();
}

std::uint64_t AddressProof::cookie(PeerHandle sender, std::uint32_t id,
                                   std::uint32_t instance) const noexcept
{
  unsigned char input[16];
  std::memcpy(input, &sender.value, 8);
  std::memcpy(input + 8, &id, 4);
  std::memcpy(input + 12, &instance, 4);
  unsigned char hash[crypto_shorthash_BYTES];
  crypto_shorthash(hash, input, sizeof input, m_key.data());
  std::uint64_t value = 0;
  std::memcpy(&value, hash, sizeof value);
  return value == 0 ? 1 : value;
}

} // namespace netprof
