#pragma once

// Checks on the host part of an address, shared by every transport that takes host:port, so
// an obvious typo gets a precise message instead of a resolver's "Name or service not known".

#include <string_view>

namespace netprof::transport_common {

// Only digits and dots: meant as an IPv4 address, so it is checked as one, never resolved.
bool looks_like_dotted_quad(std::string_view host) noexcept;

// RFC 1123 labels, plus '_' which some /etc/hosts entries use; a trailing dot is allowed.
bool is_host_name(std::string_view host) noexcept;

} // namespace netprof::transport_common
