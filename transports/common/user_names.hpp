#pragma once

// Naming the owner of a file or queue in a refusal, shared by the transports that refuse what
// another user made (shm segments, mq queues).

#include <sys/types.h>

#include <optional>
#include <string>

namespace netprof::transport_common {

// The user's login name, or nothing when no user has that uid.
std::optional<std::string> user_name(uid_t uid);

// "nobody (uid 65534)", or "uid 4242" when no user has that uid.
std::string user_label(uid_t uid);

} // namespace netprof::transport_common
