#pragma once

// --nng values: tcp://host:port or ipc:///path, parsed strictly so that NNG never sees a URL we
// could not describe, and the back channel's address derived from the data's. Throws UsageError.

#include <cstddef>
#include <cstdint>
#include <string>

namespace netprof::nng_parts {

enum class Scheme { tcp, ipc };

struct NngAddress {
  Scheme scheme = Scheme::tcp;
  std::string url;        // normalised: tcp://a.b.c.d:port or ipc:///path
  std::string host;       // tcp: a dotted quad
  std::uint16_t port = 0; // tcp: 0 only where the local pair picks one
  std::string path;       // ipc: absolute
};

// The tcp ports one stream (a publisher's, or a topic's) takes from its data port on: the data,
// the back channel and pushpull's control channel. Under --publishers and --topics stream k's
// data port is this many times k above the one given, whatever the pattern.
inline constexpr std::uint32_t ports_per_stream = 3;

// The suffix of the back channel's socket file, beside the data's.
inline constexpr const char* back_channel_suffix = ".back";
// The suffix of pushpull's control channel's socket file (no longer than the back channel's).
inline constexpr const char* control_channel_suffix = ".ctl";

// `allow_port_zero`: only the local pair may leave the port to netprof.
NngAddress parse_nng_address(const std::string& value, bool allow_port_zero = false);

// Where the publisher's back channel listens, for one whose data listens at `data`: the next
// tcp port, or the same path with ".back" after it. Throws UsageError at port 65535.
NngAddress back_channel_address(const NngAddress& data);

// Where pushpull's control channel (pub0: what must reach every subscriber) listens: the port
// after the back channel's, or the same path with ".ctl" after it. Throws UsageError past
// port 65533.
NngAddress control_channel_address(const NngAddress& data);

// Where a process on this host dials a publisher listening at `listening` (0.0.0.0: loopback).
NngAddress reachable_form(const NngAddress& listening);

// A free tcp port on `host` whose next `channels` - 1 ports are free too (the back channel's,
// and pushpull's control channel's); throws TransportError when none turns up.
std::uint16_t pick_free_port_run(const std::string& host, std::size_t channels);

} // namespace netprof::nng_parts
