#pragma once

#include <netprof/wire.hpp>

#include <tuple>

namespace netprof::wire::test {

// Header has no operator==; a tuple gives field-by-field comparison and readable failures.
inline auto header_fields(const Header& h)
{
  return std::make_tuple(static_cast<int>(h.kind), h.flags, h.sender_id, h.run_id, h.sequence,
                         h.intended_ns, h.sent_ns, h.payload_length, h.record_count);
}

} // namespace netprof::wire::test
