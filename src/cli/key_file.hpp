#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace netprof::cli {

// The shared secret in --key-file, checked as ssh checks a private key: a regular file, not a
// link, owned by the user running netprof (or root), that no one but its owner may read, holding at
// least min_secret_bytes. Any content will do (`head -c 32 /dev/urandom > key`); it is hashed into
// the key, never used as is. Throws UsageError naming the file and what is wrong.
inline constexpr std::size_t min_secret_bytes = 16;
inline constexpr std::size_t max_secret_bytes = 1 << 20;

std::vector<std::byte> read_key_file(const std::string& path);

} // namespace netprof::cli
