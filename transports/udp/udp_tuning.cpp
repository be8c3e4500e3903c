#include "udp_tuning.hpp"

#include "common/option_specs.hpp"

#include <algorithm>
#include <string>

namespace netprof::udp {

namespace {

constexpr std::size_t max_slots = 64;
constexpr double max_timeout_seconds = 3600;

} // namespace

std::size_t largest_message(const UdpTuning& tuning, std::size_t granted_receive_buffer) noexcept
{
  if (tuning.max_message) {
    return *tuning.max_message;
  }
  return std::clamp(granted_receive_buffer, max_datagram_size, default_max_message_cap);
}

std::size_t largest_reassembled_message(const UdpTuning& tuning) noexcept
{
  return tuning.max_message.value_or(default_max_message_cap);
}

std::vector<std::string> tuning_option_names()
{
  std::vector<std::string> names;
  for (const OptionSpec& spec : tuning_options().options)
    names.push_back(spec.long_name);
  return names;
}

const OptionGroup& tuning_options()
{
  static const OptionGroup group{
      "UDP, every mode",
      {OptionSpec("udp-max-message", "BYTES",
                  WholeNumber{.min = 1, .max = max_message_limit, .byte_suffixes = true},
                  "every UDP mode (-u, -m, -b): the largest message sent or reassembled (at most " +
                      std::to_string(max_message_limit) +
                      "). Default: sending, what the receive buffer (-q) holds, from " +
                      std::to_string(max_datagram_size) + " to " +
                      std::to_string(default_max_message_cap) +
                      " (16 MiB + 64 KiB); reassembling, " +
                      std::to_string(default_max_message_cap)),
       OptionSpec("fragment-size", "BYTES",
                  WholeNumber{.min = min_fragment_payload,
                              .max = max_fragment_payload,
                              .byte_suffixes = true},
                  "every UDP mode: a larger message is split into fragments of this many bytes, "
                  "each sent with a " +
                      std::to_string(fragment_header_size) + "-byte header (" +
                      std::to_string(min_fragment_payload) + " to " +
                      std::to_string(max_fragment_payload) + ")")
           .with_default("62000"),
       OptionSpec("reassembly-slots", "N", WholeNumber{1, max_slots},
                  "every UDP mode: messages reassembled at once (1 to " +
                      std::to_string(max_slots) +
                      "); a new one evicts the partial that waited longest; memory: N x the "
                      "largest message")
           .with_default("4"),
       OptionSpec("reassembly-timeout", "SECONDS",
                  RealNumber{0.0, false, max_timeout_seconds, "seconds > 0, at most 3600"},
                  "every UDP mode: a partial message that got no fragment for this long is "
                  "dropped and counts as lost")
           .with_default("1"),
       OptionSpec("udp-batch", "N", WholeNumber{1, max_batch},
                  "every UDP mode: send N messages with one sendmmsg, still one datagram each (1 "
                  "= off, at most " +
                      std::to_string(max_batch) + "); probes and waits flush early")
           .with_default("1"),
       transport_common::on_off_option(
           "udp-gso",
           "with --udp-batch: a run of equal-sized messages goes as one UDP GSO send, so "
           "the kernel builds the datagrams in one pass (still one datagram per message "
           "on the wire); off: one sendmmsg entry per message. Turned off by itself where "
           "the kernel refuses it")}};
  return group;
}

UdpTuning parse_tuning(const OptionValues& values)
{
  const OptionGroup& options = tuning_options();
  UdpTuning tuning;
  tuning.max_message = values.whole_number(options["udp-max-message"]);
  tuning.fragment_size = *values.whole_number(options["fragment-size"]);
  tuning.reassembly_slots = *values.whole_number(options["reassembly-slots"]);
  tuning.reassembly_timeout = from_seconds(*values.real_number(options["reassembly-timeout"]));
  tuning.batch = *values.whole_number(options["udp-batch"]);
  tuning.gso = transport_common::switched_on(values, options["udp-gso"]);
  return tuning;
}

} // namespace netprof::udp
