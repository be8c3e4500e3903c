// Each publisher's own addresses under --publishers, from the one command line every process
// of the run is given.

#include <netprof/errors.hpp>
#include <netprof/options.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace netprof {

namespace {

constexpr unsigned long max_port = 65'535;

bool all_digits(std::string_view text)
{
  return !text.empty() && text.size() <= 5 &&
         std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "host:port", or a port alone (broadcast's -b 4150 beside --bc-interface).
bool ends_with_port(const std::string& value)
{
  const std::size_t colon = value.rfind(':');
  return all_digits(colon == std::string::npos ? std::string_view(value)
                                               : std::string_view(value).substr(colon + 1));
}

// "host:port" (or "tcp://host:port") with the port moved up by `stream` times the ports each
// stream takes; a port 0 asks the system for any, which is any for every stream too.
std::string moved_port(const OptionSpec& spec, const std::string& value, std::uint32_t stream)
{
  const std::string by = spec.stream_ports == 1
                             ? std::string("by its number")
                             : "by its number times " + std::to_string(spec.stream_ports) +
                                   " (the ports each stream takes)";
  if (!ends_with_port(value))
    throw UsageError("--" + spec.long_name + " " + value +
                     ": --publishers and --topics move each stream's port up " + by +
                     ", so give host:port");
  const std::size_t colon = value.rfind(':'); // npos for a port alone: the whole value
  const unsigned long port = std::stoul(value.substr(colon + 1));
  if (port == 0)
    return value;
  const unsigned long moved = port + static_cast<unsigned long>(stream) * spec.stream_ports;
  // The stream's last port too: a stream of 3 ports at 65534 would need 65536.
  const unsigned long last = moved + spec.stream_ports - 1;
  if (stream > 0 && last > max_port)
    throw UsageError("--" + spec.long_name + " " + value + ": stream " + std::to_string(stream) +
                     " (publisher p's topic t is stream p*T+t) would need port " +
                     std::to_string(last) + ", past 65535: give a lower port");
  return value.substr(0, colon + 1) + std::to_string(moved);
}

std::string for_stream(const OptionSpec& spec, const std::string& value, std::uint32_t stream)
{
  switch (spec.stream) {
  case StreamRule::port_offset:
    return moved_port(spec, value, stream);
  case StreamRule::name_suffix: // empty: none given (the local pair picks one)
    return value.empty() ? value : value + spec.stream_separator + std::to_string(stream);
  case StreamRule::address:
    if (value.ends_with(":*") || value.ends_with(":0"))
      return value;
    if (ends_with_port(value))
      return moved_port(spec, value, stream);
    return value.empty() ? value : value + spec.stream_separator + std::to_string(stream);
  case StreamRule::none:
    break;
  }
  return value;
}

} // namespace

OptionValues values_for_stream(const OptionValues& values, const OptionGroup& group,
                               std::uint32_t stream)
{
  if (stream == 0)
    return values;
  OptionValues moved;
  for (GivenOption option : values.in_order()) {
    if (group.contains(option.long_name)) {
      const OptionSpec& spec = group[option.long_name];
      for (std::string& value : option.values)
        value = for_stream(spec, value, stream);
    }
    moved.add(std::move(option));
  }
  return moved;
}

bool has_streams(const OptionGroup& group) noexcept
{
  return std::any_of(group.options.begin(), group.options.end(),
                     [](const OptionSpec& spec) { return spec.stream != StreamRule::none; });
}

} // namespace netprof
