#include "udp_tuning.hpp"

#include "option_values.hpp"

#include <algorithm>

namespace netprof::udp {

namespace {

namespace po = boost::program_options;

constexpr const char* default_fragment_size = "62000";
constexpr const char* default_slots = "4";
constexpr const char* default_timeout = "1";
constexpr const char* default_batch = "1";
constexpr const char* default_gso = "on";
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

UdpTuningOptions::UdpTuningOptions()
    : m_fragment_size(default_fragment_size), m_reassembly_slots(default_slots),
      m_reassembly_timeout(default_timeout), m_batch(default_batch), m_gso(default_gso)
{
  const std::string fragment_range =
      std::to_string(min_fragment_payload) + " to " + std::to_string(max_fragment_payload);
  m_options.add_options()
    ("udp-max-message", po::value<std::string>(&m_max_message)->value_name("BYTES"),
     ("every UDP mode (-u, -m, -b): the largest message sent or reassembled (at most " +
      std::to_string(max_message_limit) + "). Default: sending, what the receive buffer (-q) "
      "holds, from " + std::to_string(max_datagram_size) + " to " +
      std::to_string(default_max_message_cap) + " (16 MiB + 64 KiB); reassembling, " +
      std::to_string(default_max_message_cap)).c_str())
    ("fragment-size",
     po::value<std::string>(&m_fragment_size)->value_name("BYTES")->default_value(default_fragment_size),
     ("every UDP mode: a larger message is split into fragments of this many bytes, each "
      "sent with a " + std::to_string(fragment_header_size) + "-byte header (" + fragment_range +
      ")").c_str())
    ("reassembly-slots",
     po::value<std::string>(&m_reassembly_slots)->value_name("N")->default_value(default_slots),
     ("every UDP mode: messages reassembled at once (1 to " + std::to_string(max_slots) +
      "); a new one evicts the partial that waited longest; memory: N x the largest message")
         .c_str())
    ("reassembly-timeout",
     po::value<std::string>(&m_reassembly_timeout)->value_name("SECONDS")->default_value(default_timeout),
     "every UDP mode: a partial message that got no fragment for this long is dropped and "
     "counts as lost")
    ("udp-batch", po::value<std::string>(&m_batch)->value_name("N")->default_value(default_batch),
     ("every UDP mode: send N messages with one sendmmsg, still one datagram each (1 = off, at "
      "most " + std::to_string(max_batch) + "); probes and waits flush early").c_str())
    ("udp-gso", po::value<std::string>(&m_gso)->value_name("on|off")->default_value(default_gso),
     "with --udp-batch: a run of equal-sized messages goes as one UDP GSO send, so the kernel "
     "builds the datagrams in one pass (still one datagram per message on the wire); off: "
     "one sendmmsg entry per message. Turned off by itself where the kernel refuses it");
}

bool UdpTuningOptions::has_option(const std::string& long_name) const
{
  return m_options.find_nothrow(long_name, false) != nullptr;
}

UdpTuning UdpTuningOptions::parse() const
{
  UdpTuning tuning;
  if (!m_max_message.empty()) {
    tuning.max_message = parse_whole_number("--udp-max-message", m_max_message, 1, max_message_limit);
  }
  tuning.fragment_size = parse_whole_number("--fragment-size", m_fragment_size,
                                            min_fragment_payload, max_fragment_payload);
  tuning.reassembly_slots =
      parse_whole_number("--reassembly-slots", m_reassembly_slots, 1, max_slots);
  tuning.reassembly_timeout =
      parse_positive_seconds("--reassembly-timeout", m_reassembly_timeout, max_timeout_seconds);
  tuning.batch = parse_whole_number("--udp-batch", m_batch, 1, max_batch);
  tuning.gso = parse_on_off("--udp-gso", m_gso);
  return tuning;
}

std::vector<std::string> UdpTuningOptions::arguments() const
{
  std::vector<std::string> arguments;
  const auto add = [&](const char* flag, const std::string& value, const char* default_value) {
    if (value != default_value) {
      arguments.push_back(flag);
      arguments.push_back(value);
    }
  };
  add("--udp-max-message", m_max_message, "");
  add("--fragment-size", m_fragment_size, default_fragment_size);
  add("--reassembly-slots", m_reassembly_slots, default_slots);
  add("--reassembly-timeout", m_reassembly_timeout, default_timeout);
  add("--udp-batch", m_batch, default_batch);
  add("--udp-gso", m_gso, default_gso);
  return arguments;
}

} // namespace netprof::udp
