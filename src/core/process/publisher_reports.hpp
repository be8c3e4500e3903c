#pragma once

// A local group of several publishers (--local-pair --publishers P) writes one JSON report:
// publisher 0's, with every publisher's figures gathered into it.

#include <cstdint>
#include <string>

namespace netprof {

// `path` holds publisher 0's JSON report and `path`.k publisher k's (1 to publishers - 1):
// adds to the first a "publishers" array, each entry a publisher's id, result, figures and
// subscribers (null figures for one that wrote none), and removes the others. Throws
// TransportError when `path` cannot be read or written.
void gather_publisher_reports(const std::string& path, std::uint32_t publishers);

} // namespace netprof
