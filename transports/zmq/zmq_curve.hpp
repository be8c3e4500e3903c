#pragma once

// --zmq-curve FILE: ZeroMQ's CURVE security (CurveZMQ) for tcp across networks the user does
// not trust. FILE holds 32 random bytes that every process of the run is given, never a key on
// the command line. They are the publisher's CURVE secret key; the public key derived from
// them is the server key every subscriber needs. CURVE never sends that key on the wire, so a
// process without the file can neither complete a handshake with the publisher nor answer as
// one to a subscriber: it connects, is refused, and hears nothing. Every connection is then
// authenticated and encrypted. A subscriber's own key pair is made afresh when it starts.

#include <cstddef>
#include <string>

namespace netprof::zeromq {

// Z85 text, as ZMQ_CURVE_* take it: 40 characters for 32 bytes.
struct CurveKeys {
  std::string server_secret;
  std::string server_public;
};

inline constexpr std::size_t curve_key_file_bytes = 32;
// What CURVE adds to each message on the wire: the MESSAGE command's name, its nonce, the
// flags byte inside the box and the box's authenticator (8 + 8 + 1 + 16).
inline constexpr std::size_t curve_message_overhead = 33;
// Room for the largest handshake command, a client's INITIATE (cookie, nonces, the vouch and
// the socket type, boxed): a limit of 260 B refused it and 280 B let it through, so 512 B
// leaves room for libzmq to add metadata.
inline constexpr std::size_t curve_largest_handshake_command = 512;

// True when this libzmq was built with CURVE (zmq_has("curve")).
bool curve_available() noexcept;

// Reads the key file: a regular file of exactly 32 bytes that only its owner may read or
// write (as ssh wants of a private key). Throws UsageError with one line naming the file and
// how to make a good one.
CurveKeys load_curve_keys(const std::string& path);

// Makes the socket the CURVE server (the publisher) or a client that knows the server's key
// (a subscriber), before it binds or connects. Throws TransportError.
void apply_curve(void* socket, const CurveKeys& keys, bool server);

} // namespace netprof::zeromq
