#include "zmq_endpoint.hpp"

#include <netprof/errors.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fstream>

// Setting up a ZmqEndpoint's socket: its options and notes, its buffers, its own endpoint.
// The endpoint's traffic is in zmq_endpoint.cpp.

namespace netprof::zeromq {

namespace {

// How long closing waits to flush what is queued (the publisher's last acknowledgements); a
// peer that is gone must not hold the exit up for longer.
constexpr int linger_ms = 100;

std::size_t read_sysctl(const char* path)
{
  std::ifstream file(path);
  std::size_t value = 0;
  return (file >> value) ? value : 0;
}

std::string bind_hint(const Address& address, int error)
{
  if (address.scheme == Scheme::ipc && (error == ENOENT || error == EACCES || error == EROFS)) {
    return " (is the directory there and writable?)";
  }
  if (error == EADDRINUSE) {
    return " (the first --zmq is this process's own endpoint; a peer's comes after it)";
  }
  if (error == ENODEV || error == EADDRNOTAVAIL) {
    return " (no such interface or address on this host)";
  }
  return "";
}

// A socket file takes its mode from the umask, and whoever may write to it may connect: under
// umask 000 every user on the host could take the stream. So it is bound under a umask that
// leaves it 0600, like the shm segment; ipc://* makes its file in a fresh directory of its own,
// which must keep its x bit (0700). The umask is the whole process's: it is changed around
// zmq_bind only, which makes the file in this thread, and no other thread of netprof makes files
// then (ZeroMQ's I/O threads never do; under --local-pair --threads the subscriber's thread binds
// while the publisher's waits for it, making none). A chmod after binding would leave a moment in
// which another user could connect, and a connection once made outlives the chmod.
int bind_privately(void* handle, const Address& own)
{
  if (own.scheme != Scheme::ipc) {
    return zmq_bind(handle, own.text.c_str());
  }
  const mode_t only_the_owner = S_IRWXG | S_IRWXO | (own.wildcard ? 0 : S_IXUSR);
  const mode_t previous = umask(only_the_owner);
  const int bound = zmq_bind(handle, own.text.c_str());
  const int error = errno;
  umask(previous);
  errno = error;
  return bound;
}

// What the high-water mark is, where it came from, and what reaching it does on this side.
std::string high_water_mark_note(const EndpointSettings& settings, int hwm, bool publisher)
{
  std::string basis = settings.history_depth > 0 ? std::string("--history keep-last:") +
                                                       std::to_string(settings.history_depth)
                      : settings.queue_length_bytes == 0
                          ? std::string("ZeroMQ's default, -q 0")
                          : "-q " + std::to_string(settings.queue_length_bytes) + " B / " +
                                std::to_string(settings.message_bytes) +
                                " B per message, at least " + std::to_string(min_high_water_mark);
  std::string hwm_note = "high-water mark " + std::to_string(hwm) +
                         " messages per peer and direction (" + basis + "): ";
  if (settings.pattern == Pattern::pushpull) {
    hwm_note += publisher ? "at the HWM PUSH waits: the data is never dropped"
                          : "the publisher's PUSH waits at its own HWM, so nothing is dropped";
  } else if (!publisher) {
    hwm_note += "the publisher's drops at its own HWM are silent, so loss over this reliable "
                "transport most likely means a full queue";
  } else if (settings.no_drop) {
    hwm_note += "at the HWM the publisher waits (--zmq-nodrop, or --reliability reliable) instead "
                "of dropping";
  } else {
    hwm_note += "at the HWM the publisher drops silently (ZeroMQ PUB), so loss over this "
                "reliable transport most likely means the HWM: raise -q or add --zmq-nodrop";
  }
  return hwm_note;
}

} // namespace

void ZmqEndpoint::apply_common_options(zmq::socket_t& socket, const EndpointSettings& settings)
{
  socket.set(zmq::sockopt::sndhwm, m_high_water_mark);
  socket.set(zmq::sockopt::rcvhwm, m_high_water_mark);
  socket.set(zmq::sockopt::linger, linger_ms);
  if (settings.curve) {
    apply_curve(socket.handle(), *settings.curve, m_publisher);
  }
  const bool ipv6 = settings.own.ipv6 || std::any_of(settings.peers.begin(), settings.peers.end(),
                                                     [](const Address& a) { return a.ipv6; });
  if (ipv6) {
    socket.set(zmq::sockopt::ipv6, true);
  }
}

void ZmqEndpoint::configure(const EndpointSettings& settings)
{
  m_high_water_mark = high_water_mark(settings);
  apply_common_options(m_socket, settings);
  limit_what_it_reads(settings);
  if (m_publisher) {
    // Every connection's subscription, and its cancellation when it goes, not only the first
    // and the last: count_subscription() counts connections by them.
    m_socket.set(zmq::sockopt::xpub_verboser, true);
  }
  if (m_publisher && settings.no_drop) {
    m_socket.set(zmq::sockopt::xpub_nodrop, true);
  }
  if (settings.curve) {
    m_curve = true;
    m_notes.push_back(std::string("CURVE (--zmq-curve): every connection authenticated and "
                                  "encrypted; this process is the CURVE ") +
                      (m_publisher ? "server" : "client"));
  }
  pattern_notes(settings);
  m_notes.push_back(high_water_mark_note(settings, m_high_water_mark, m_publisher));
  size_buffers(settings);
}

void ZmqEndpoint::pattern_notes(const EndpointSettings& settings)
{
  int major = 0;
  int minor = 0;
  int patch = 0;
  zmq_version(&major, &minor, &patch);
  const std::string version = "ZeroMQ " + std::to_string(major) + "." + std::to_string(minor) +
                              "." + std::to_string(patch) + ", " +
                              std::to_string(settings.io_threads) + " I/O thread" +
                              (settings.io_threads == 1 ? "" : "s");
  const char* main_socket = m_publisher ? "XPUB" : "XSUB";
  if (settings.pattern == Pattern::pubsub) {
    m_notes.push_back(version + ", " + main_socket + " socket carrying data and back channel");
    return;
  }
  const char* deal_socket = m_publisher ? "PUSH" : "PULL";
  std::string carried;
  if (!m_publisher) {
    carried = ": the data over PULL, its control messages over XSUB, which also carries the "
              "back channel";
  } else if (settings.round_robin) {
    carried = ": PUSH deals the data and END to each subscriber in turn (one whose queue is "
              "full is passed over), and the rest goes to all over XPUB, which also carries "
              "the back channel";
  } else {
    carried = ": everything to the one subscriber over PUSH, in order; the back channel over "
              "XPUB";
  }
  m_notes.push_back(version + ", --zmq-pattern pushpull, " + deal_socket + " and " + main_socket +
                    " sockets" + carried);
  if (m_publisher) {
    m_notes.push_back("PUSH waits at the high-water mark and never drops; it deals to whichever "
                      "PULL connects, whoever it is (--zmq-curve keeps strangers out)");
  }
}

void ZmqEndpoint::open_deal_socket(const EndpointSettings& settings)
{
  m_deal_socket = zmq::socket_t(m_context->context(),
                                m_publisher ? zmq::socket_type::push : zmq::socket_type::pull);
  m_deal_handle = m_deal_socket.handle();
  apply_common_options(m_deal_socket, settings);
  // Only a connection made takes messages: a pipe to a peer not there yet would take its share
  // and hold it.
  m_deal_socket.set(zmq::sockopt::immediate, true);
  if (m_kernel_buffer_bytes > 0) {
    m_deal_socket.set(zmq::sockopt::sndbuf, m_kernel_buffer_bytes);
    m_deal_socket.set(zmq::sockopt::rcvbuf, m_kernel_buffer_bytes);
  }
  // A subscriber that connects to its publisher needs no port of its own for the data: its PULL
  // binds only where its publisher connects to it instead. The PULL reads the data, the PUSH only
  // what a stranger might send it: each takes its role's limit on connections it makes.
  if (m_publisher || settings.peers.empty()) {
    bind_own(m_deal_socket, deal_address(settings.own), m_connected_limit);
  }
  std::vector<Address> peers;
  for (const Address& peer : settings.peers) {
    peers.push_back(deal_address(peer));
  }
  connect_peers(m_deal_socket, peers, m_connected_limit);
}

void ZmqEndpoint::limit_what_it_reads(const EndpointSettings& settings)
{
  // A stranger's connection may announce a message of any size, and libzmq would allocate it;
  // above ZMQ_MAXMSGSIZE it closes that connection instead, and the core is never told. Data
  // arrives only at a subscriber, from its publisher, of the publisher's -s (which may not be
  // the subscriber's own): there the limit stays what send() takes. Everywhere else only control
  // messages come, so a stranger there is cut off at the largest of them: every connection of
  // the publisher (with room for the escape byte), and a subscriber's own endpoint when it
  // connects to its publisher (when it does not, its publisher connects there instead).
  // Under CURVE the limit is on what arrives encrypted, handshake commands included.
  const std::size_t curve_overhead = settings.curve ? curve_message_overhead : 0;
  const std::size_t data = m_max_message_size + curve_overhead;
  std::size_t control = data;
  if (settings.largest_control_message > 0) {
    control = settings.largest_control_message + (m_publisher ? 1 : 0) + curve_overhead;
    if (settings.curve) {
      control = std::max(control, curve_largest_handshake_command);
    }
  }
  const bool data_on_own_endpoint = !m_publisher && settings.peers.empty();
  m_bound_limit = m_publisher || !data_on_own_endpoint ? control : data;
  m_connected_limit = m_publisher ? control : data;
  if (control == data) {
    return;
  }
  const std::string limit = std::to_string(control) + " B (the largest control message" +
                            (settings.curve ? ", with room for CURVE" : "") + ")";
  m_notes.push_back(m_publisher ? "reads messages of at most " + limit +
                                      ": ZeroMQ closes a connection that sends a larger one"
                                : "its own endpoint reads messages of at most " + limit +
                                      ", data coming on its connection to the publisher: "
                                      "ZeroMQ closes a connection there that sends a larger one");
}

void ZmqEndpoint::connect_peers(zmq::socket_t& socket, const std::vector<Address>& peers,
                                std::size_t limit)
{
  socket.set(zmq::sockopt::maxmsgsize, static_cast<std::int64_t>(limit));
  for (const Address& peer : peers) {
    if (zmq_connect(socket.handle(), peer.text.c_str()) != 0) {
      throw TransportError("cannot connect ZeroMQ " + peer.text + ": " + zmq_strerror(zmq_errno()));
    }
    m_peer_addresses.push_back(peer.text);
  }
}

void ZmqEndpoint::size_buffers(const EndpointSettings& settings)
{
  const std::size_t requested = settings.queue_length_bytes;
  m_requested_buffer_bytes = requested;
  bool any_tcp = settings.own.scheme == Scheme::tcp;
  bool any_ipc = settings.own.scheme == Scheme::ipc;
  bool any_inproc = settings.own.scheme == Scheme::inproc;
  for (const Address& peer : settings.peers) {
    any_tcp = any_tcp || peer.scheme == Scheme::tcp;
    any_ipc = any_ipc || peer.scheme == Scheme::ipc;
    any_inproc = any_inproc || peer.scheme == Scheme::inproc;
  }
  if (any_inproc) {
    m_notes.push_back("inproc: messages pass between the threads of this process through "
                      "ZeroMQ's in-memory pipes, in one context both endpoints share (no kernel, "
                      "no I/O thread); -q sets the high-water mark only");
  }
  if (any_tcp) {
    m_notes.push_back("TCP_NODELAY on: ZeroMQ sets it on every tcp connection, and batches "
                      "small messages itself");
  }
  if (any_ipc && requested > 0) {
    m_notes.push_back("ipc: ZeroMQ applies -q to the high-water mark only; ipc socket buffers "
                      "stay at the kernel's default");
  }
  if (requested == 0 || !any_tcp) {
    return; // the kernel's defaults (tcp autotuning): not reported
  }
  // ZeroMQ hands the value to SO_SNDBUF/SO_RCVBUF of each tcp connection, where Linux caps
  // it at the sysctl maximum; the cap is read here because ZeroMQ hides those sockets.
  const int value = static_cast<int>(std::min<std::size_t>(requested, INT_MAX / 2));
  m_kernel_buffer_bytes = value;
  m_socket.set(zmq::sockopt::sndbuf, value);
  m_socket.set(zmq::sockopt::rcvbuf, value);
  struct Buffer {
    const char* name;
    const char* sysctl;
    const char* path;
    std::size_t* granted;
  };
  const Buffer buffers[] = {
      {"send", "net.core.wmem_max", "/proc/sys/net/core/wmem_max", &m_granted_send_buffer_bytes},
      {"receive", "net.core.rmem_max", "/proc/sys/net/core/rmem_max",
       &m_granted_receive_buffer_bytes},
  };
  for (const Buffer& buffer : buffers) {
    const std::size_t limit = read_sysctl(buffer.path);
    *buffer.granted = limit > 0 ? std::min<std::size_t>(static_cast<std::size_t>(value), limit)
                                : static_cast<std::size_t>(value);
    if (*buffer.granted < requested) {
      m_notes.push_back(std::string("tcp ") + buffer.name + " buffer clamped to " +
                        std::to_string(*buffer.granted) + " B by " + buffer.sysctl +
                        " (requested " + std::to_string(requested) + " B)");
    }
  }
}

void ZmqEndpoint::bind_own(zmq::socket_t& socket, const Address& own, std::size_t limit)
{
  const IpcBindCheck check = prepare_ipc_bind(own);
  socket.set(zmq::sockopt::maxmsgsize, static_cast<std::int64_t>(limit));
  if (bind_privately(socket.handle(), own) != 0) {
    const int error = zmq_errno();
    throw TransportError("cannot bind ZeroMQ " + own.text + ": " + zmq_strerror(error) +
                         bind_hint(own, error));
  }
  std::string bound = socket.get(zmq::sockopt::last_endpoint);
  m_local_addresses.push_back(bound.empty() ? own.text : bound);
  if (own.is_ipc_file()) {
    m_own_files.push_back({own.path, identify_file(own.path)});
  }
  if (check.removed_stale) {
    m_notes.push_back("removed a stale socket file at " + own.path +
                      " (left by an earlier run: nobody was listening on it)");
  }
  if (&socket == &m_socket && own.scheme == Scheme::ipc && !own.is_ipc_file() && !own.wildcard) {
    m_notes.push_back("ipc://@ names have no file and so no permissions: any process on this "
                      "host may connect (a path keeps other users out)");
  }
}

} // namespace netprof::zeromq
