#pragma once

// --list-transports: what this build carries, for scripts.

#include <netprof/registry.hpp>

#include <string>

namespace netprof::cli {

// One line per transport: its name, a tab, its summary.
std::string transport_list(const TransportRegistry& registry);

// With --json: one JSON object (schema_version 1) naming the version, the wire header's size
// and, per transport, its summary, the options it reads, the arguments of a local pair on
// loopback and those of a publisher and `subscribers` subscribers with the files a killed run
// may leave (fresh free ports and names on each call, derived from `given` where it names the
// transport's endpoints), its flags (TransportFlags; needs_private_netns and allows_threads
// repeat two of them, as before), and its remote-launch templates (RemoteLaunch, or null when it
// runs on one host only). Scripts read this instead of restating each transport's arguments.
std::string transport_list_json(const TransportRegistry& registry, const OptionValues& given,
                                std::size_t subscribers);

} // namespace netprof::cli
