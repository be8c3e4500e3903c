#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace netprof::transport_common {

struct BufferSizes {
  std::size_t requested = 0;    // -q as given (0: OS default)
  std::size_t granted_send = 0; // usable bytes, as -q counts them (Linux reports twice that)
  std::size_t granted_receive = 0;
  std::vector<std::string> notes; // clamped, or forced beyond the sysctl
};

// Sets SO_SNDBUF on send_fd and SO_RCVBUF on receive_fd (they may be the same socket) to
// `requested` when non-zero, and reads back what the kernel granted. When the kernel clamps to
// net.core.[rw]mem_max, tries SO_[SND|RCV]BUFFORCE, which CAP_NET_ADMIN allows, so that -q is
// honoured; either way the outcome is noted. Throws TransportError, naming `protocol` ("UDP",
// "TCP"), when the kernel refuses.
BufferSizes size_socket_buffers(int send_fd, int receive_fd, std::size_t requested,
                                std::string_view protocol);

} // namespace netprof::transport_common
