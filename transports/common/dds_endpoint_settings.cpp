#include "dds_endpoint_settings.hpp"

namespace netprof::transport_common {

const char* notify_name(DdsNotify notify) noexcept
{
  switch (notify) {
  case DdsNotify::listener:
    return "listener";
  case DdsNotify::waitset:
    return "waitset";
  case DdsNotify::poll:
    return "poll";
  }
  return "?";
}

} // namespace netprof::transport_common
