#pragma once

// Checks on the host part of an address, shared by every transport that takes host:port, so
// an obvious typo gets a precise message instead of a resolver's "Name or service not known".

#include <netdb.h>

#include <memory>
#include <string_view>

namespace netprof::transport_common {

// Only digits and dots: meant as an IPv4 address, so it is checked as one, never resolved.
bool looks_like_dotted_quad(std::string_view host) noexcept;

// RFC 1123 labels, plus '_' which some /etc/hosts entries use; a trailing dot is allowed.
bool is_host_name(std::string_view host) noexcept;

// Throws UsageError("bad FLAG value 'VALUE': REASON"), the one wording of an address mistake.
[[noreturn]] void throw_bad_address(std::string_view flag, std::string_view value,
                                    std::string_view reason);

struct AddrinfoDeleter {
  void operator()(addrinfo* list) const noexcept { freeaddrinfo(list); }
};
using AddrinfoList = std::unique_ptr<addrinfo, AddrinfoDeleter>; // what getaddrinfo returned

} // namespace netprof::transport_common
