#include "user_names.hpp"

#include <pwd.h>

#include <vector>

namespace netprof::transport_common {

std::optional<std::string> user_name(uid_t uid)
{
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr)
    return std::nullopt;
  return std::string(found->pw_name);
}

std::string user_label(uid_t uid)
{
  const std::optional<std::string> name = user_name(uid);
  return name ? *name + " (uid " + std::to_string(uid) + ")" : "uid " + std::to_string(uid);
}

} // namespace netprof::transport_common
