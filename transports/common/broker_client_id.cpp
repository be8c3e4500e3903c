#include "common/broker_client_id.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <random>

namespace netprof::transport_common {

std::string broker_client_id()
{
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  char text[64];
  std::snprintf(text, sizeof text, "netprof-%ld-%u-%08x", static_cast<long>(getpid()),
                counter.fetch_add(1), static_cast<unsigned>(random()));
  return text;
}

} // namespace netprof::transport_common
