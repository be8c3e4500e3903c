#pragma once

// Options that several transports declare alike, said once: the option that names a transport,
// and an on|off switch.

#include <netprof/options.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace netprof::transport_common {

// The option that names a transport and where its processes meet (--tcp host:port, --shm
// NAME, -m group:port): text the transport checks itself, which the local pair never passes on
// as given (it hands each process arguments of its own). `alone` is what the flag given without
// a value stands for: by default none (""), so that --local-pair picks the place itself (free
// loopback ports, a fresh name); std::nullopt when it needs a value.
inline OptionSpec naming_option(std::string_view names, std::string value_name, std::string help,
                                std::optional<std::string> alone = std::string())
{
  OptionSpec spec =
      OptionSpec(names, std::move(value_name), Text{}, std::move(help)).passed(PairRoute::neither);
  if (alone)
    return std::move(spec).with_implicit(std::move(*alone));
  return spec;
}

// An on|off choice, on unless the user says off; read with switched_on().
inline OptionSpec on_off_option(std::string_view names, std::string help)
{
  return OptionSpec(names, "on|off", Choice{{"on", "off"}}, std::move(help)).with_default("on");
}

inline bool switched_on(const OptionValues& values, const OptionSpec& spec)
{
  return *values.choice(spec) == 0; // on_off_option's first choice
}

} // namespace netprof::transport_common
