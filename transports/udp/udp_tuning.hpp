#pragma once

// Options every UDP mode (-u, -m, -b) shares: large messages and send batching. The udp entry
// shows them in --help; each UDP transport reads their values when it opens.

#include "fragment_header.hpp"

#include <netprof/clock.hpp>
#include <netprof/options.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace netprof::udp {

// 16 MiB of payload plus room for netprof's header and records.
inline constexpr std::size_t default_max_message_cap = (std::size_t{16} << 20) + (64 << 10);
// Beyond this, slots x largest message stops being a sane memory bound.
inline constexpr std::size_t max_message_limit = std::size_t{1} << 30;
// The most datagrams one sendmmsg takes (the kernel's UIO_MAXIOV).
inline constexpr std::size_t max_batch = 1024;

struct UdpTuning {
  // --udp-max-message. Unset: as large as the receive buffer holds, between max_datagram_size
  // and default_max_message_cap (see largest_message()).
  std::optional<std::size_t> max_message;
  std::size_t fragment_size = 62000; // MADARA's default fragment size
  std::size_t reassembly_slots = 4;
  Nanoseconds reassembly_timeout = std::chrono::seconds(1);
  std::size_t batch = 1;
  bool gso = true; // batches: runs of equal-sized messages as one UDP GSO send
};

// The largest message an endpoint sends: what the user gave, or else what its own receive
// buffer can hold whole, since the receiver on the other side is usually given the same -q and
// a message larger than its buffer cannot be relied on to arrive.
std::size_t largest_message(const UdpTuning& tuning, std::size_t granted_receive_buffer) noexcept;

// The largest message an endpoint reassembles: what the user gave, or else the cap. Larger than
// what it sends, so a sender with a bigger -q is still heard.
std::size_t largest_reassembled_message(const UdpTuning& tuning) noexcept;

// The options every UDP mode reads: shown in the udp entry's group, read by all three.
const OptionGroup& tuning_options();
// Their long names, which multicast and broadcast read too (TransportDescriptor::also_reads).
std::vector<std::string> tuning_option_names();

// Throws UsageError naming the option and the value.
UdpTuning parse_tuning(const OptionValues& values);

} // namespace netprof::udp
