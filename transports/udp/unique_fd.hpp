#pragma once

#include "common/unique_fd.hpp"

namespace netprof::udp {

using transport_common::UniqueFd;

} // namespace netprof::udp
