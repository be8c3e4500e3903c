#include "nng_socket.hpp"

#include <netprof/errors.hpp>

#include <nng/protocol/pair0/pair.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>
#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/pubsub0/sub.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace netprof::nng_parts {

namespace {

// How soon a dialler tries again when nobody listened: quick, so that a subscriber started
// just before its publisher loses little time, and capped so a missing one costs little CPU.
constexpr nng_duration reconnect_min_ms = 10;
constexpr nng_duration reconnect_max_ms = 250;
// Owner read and write only, like every socket file netprof makes.
constexpr int owner_only = 0600;

[[noreturn]] void fail(const std::string& what, int error)
{
  throw TransportError(what + ": " + nng_strerror(error));
}

void check(int error, const std::string& what)
{
  if (error != 0) {
    fail(what, error);
  }
}

int open_socket(Protocol protocol, nng_socket& socket)
{
  switch (protocol) {
  case Protocol::pub0:
    return nng_pub0_open(&socket);
  case Protocol::sub0:
    return nng_sub0_open(&socket);
  case Protocol::push0:
    return nng_push0_open(&socket);
  case Protocol::pull0:
    return nng_pull0_open(&socket);
  case Protocol::pair0:
    return nng_pair0_open(&socket);
  }
  return NNG_EINVAL;
}

std::string listen_hint(const NngAddress& address, int error)
{
  if (error == NNG_EADDRINUSE) {
    return address.scheme == Scheme::tcp
               ? " (another process listens there; the back channel takes the next port too)"
               : " (another process listens there)";
  }
  return "";
}

} // namespace

const char* protocol_name(Protocol protocol) noexcept
{
  switch (protocol) {
  case Protocol::pub0:
    return "pub0";
  case Protocol::sub0:
    return "sub0";
  case Protocol::push0:
    return "push0";
  case Protocol::pull0:
    return "pull0";
  case Protocol::pair0:
    return "pair0";
  }
  return "?";
}

NngSocket::NngSocket(Protocol protocol)
{
  check(open_socket(protocol, m_socket),
        std::string("cannot open an NNG ") + protocol_name(protocol) + " socket");
  for (const nng_pipe_ev event : {NNG_PIPE_EV_ADD_PRE, NNG_PIPE_EV_REM_POST}) {
    nng_pipe_notify(m_socket, event, &NngSocket::on_pipe_event, this);
  }
  if (protocol == Protocol::sub0) {
    // Everything: netprof filters nothing by topic. The destructor does not run for a
    // constructor that throws, so the socket is closed here.
    if (const int subscribed = nng_socket_set(m_socket, NNG_OPT_SUB_SUBSCRIBE, "", 0);
        subscribed != 0) {
      nng_close(m_socket);
      fail("cannot subscribe", subscribed);
    }
  }
  nng_socket_set_ms(m_socket, NNG_OPT_RECONNMINT, reconnect_min_ms);
  nng_socket_set_ms(m_socket, NNG_OPT_RECONNMAXT, reconnect_max_ms);
}

// NNG 1.5.2 can wait forever in nng_close while messages still stream into a receive queue
// nobody reads (a subscriber that stopped reading, torn down mid-stream). What arrives is thrown
// away until the stream has been quiet for a moment, for a bounded time. A socket with nothing
// queued closes at once: lingering would let its peer leave first, and NNG 1.5.2 loses (leaks)
// a message still in flight on a pipe its peer closed, where closing the socket frees it.
void NngSocket::discard_what_streams_in() noexcept
{
  using std::chrono::steady_clock;
  constexpr auto quiet = std::chrono::milliseconds(10);
  const auto give_up = steady_clock::now() + std::chrono::milliseconds(300);
  auto last_message = steady_clock::now();
  bool streaming = false;
  for (auto now = last_message; now < give_up && now - last_message < quiet;
       now = steady_clock::now()) {
    nng_msg* queued = nullptr;
    const int received = nng_recvmsg(m_socket, &queued, NNG_FLAG_NONBLOCK);
    if (received == 0) {
      nng_msg_free(queued);
      last_message = now;
      streaming = true;
    } else if (received != NNG_EAGAIN || !streaming) {
      return; // cannot receive (pub0), or nothing was streaming in
    }
  }
}

NngSocket::~NngSocket()
{
  discard_what_streams_in();
  // Closing waits for NNG's callbacks on this socket, so none runs on a destroyed object.
  nng_close(m_socket);
  if (!m_own_file.empty()) {
    transport_common::remove_if_same_file(m_own_file, m_own_file_identity);
  }
}

void NngSocket::configure(std::size_t receive_limit, int queue_messages)
{
  check(nng_socket_set_size(m_socket, NNG_OPT_RECVMAXSZ, receive_limit),
        "cannot set NNG_OPT_RECVMAXSZ");
  // Not every protocol has both queues (pub0 receives nothing): what it lacks it refuses.
  nng_socket_set_int(m_socket, NNG_OPT_SENDBUF, queue_messages);
  nng_socket_set_int(m_socket, NNG_OPT_RECVBUF, queue_messages);
}

bool NngSocket::listen(const NngAddress& address)
{
  bool removed_stale = false;
  if (address.scheme == Scheme::ipc) {
    removed_stale = transport_common::prepare_socket_file(
                        address.path, {"nng " + address.url, SOCK_STREAM, false})
                        .removed_stale;
  }
  nng_listener listener = NNG_LISTENER_INITIALIZER;
  check(nng_listener_create(&listener, m_socket, address.url.c_str()),
        "cannot listen at nng " + address.url);
  int started = 0;
  if (address.scheme == Scheme::ipc) {
    // NNG would chmod the file after binding it, leaving a moment in which anyone could
    // connect; under this umask it is born 0600. Only this thread makes files now.
    nng_listener_set_int(listener, NNG_OPT_IPC_PERMISSIONS, owner_only);
    const mode_t previous = umask(S_IRWXG | S_IRWXO | S_IXUSR);
    started = nng_listener_start(listener, 0);
    umask(previous);
  } else {
    started = nng_listener_start(listener, 0);
  }
  if (started != 0) {
    nng_listener_close(listener);
    throw TransportError("cannot listen at nng " + address.url + ": " + nng_strerror(started) +
                         listen_hint(address, started));
  }
  if (address.scheme == Scheme::ipc) {
    m_own_file = address.path;
    m_own_file_identity = transport_common::identify_file(address.path);
  }
  return removed_stale;
}

void NngSocket::dial(const NngAddress& address)
{
  // First synchronously, so that a publisher already listening is connected to before open()
  // returns (its first message cannot miss us); then, if nobody listens yet, in the background.
  const int dialled = nng_dial(m_socket, address.url.c_str(), nullptr, 0);
  if (dialled == 0) {
    return;
  }
  if (dialled != NNG_ECONNREFUSED && dialled != NNG_ENOENT && dialled != NNG_ETIMEDOUT) {
    fail("cannot dial nng " + address.url, dialled);
  }
  check(nng_dial(m_socket, address.url.c_str(), nullptr, NNG_FLAG_NONBLOCK),
        "cannot dial nng " + address.url);
}

std::optional<std::uint32_t> NngSocket::make_room_for(std::uint32_t pipe) noexcept
{
  std::uint32_t evicted = 0;
  if (m_most_pipes != 0 && m_admitted.size() >= m_most_pipes) {
    const auto now = std::chrono::steady_clock::now();
    const auto unproven = std::find_if(m_admitted.begin(), m_admitted.end(), [&](const auto& held) {
      return !held.proven && now - held.since >= unproven_hold;
    });
    if (unproven == m_admitted.end()) {
      return std::nullopt;
    }
    evicted = unproven->id;
    m_admitted.erase(unproven);
  }
  try {
    m_admitted.push_back({pipe, std::chrono::steady_clock::now(), false});
  } catch (...) {
    return std::nullopt; // out of memory: better refused than uncounted
  }
  return evicted;
}

void NngSocket::on_pipe_event(nng_pipe pipe, nng_pipe_ev event, void* self) noexcept
{
  auto& socket = *static_cast<NngSocket*>(self);
  const std::uint32_t id = pipe.id;
  std::unique_lock lock(socket.m_admitted_mutex);
  std::optional<std::uint32_t> evicted;
  if (event == NNG_PIPE_EV_ADD_PRE) {
    evicted = socket.make_room_for(id);
    if (!evicted) {
      lock.unlock();
      nng_pipe_close(pipe);
      socket.m_refused_pipes.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    socket.m_latest_pipe.store(id, std::memory_order_relaxed);
  } else {
    std::erase_if(socket.m_admitted, [&](const Admitted& held) { return held.id == id; });
  }
  const std::size_t count = socket.m_admitted.size();
  socket.m_pipes.store(count, std::memory_order_relaxed);
  socket.m_peak_pipes.store(std::max(socket.m_peak_pipes.load(std::memory_order_relaxed), count),
                            std::memory_order_relaxed);
  lock.unlock(); // closing runs NNG's removal callback, which takes the lock
  if (evicted && *evicted != 0) {
    nng_pipe_close(nng_pipe{*evicted});
    socket.m_evicted_pipes.fetch_add(1, std::memory_order_relaxed);
  }
}

void NngSocket::prove(std::uint32_t pipe) noexcept
{
  const std::lock_guard lock(m_admitted_mutex);
  for (Admitted& held : m_admitted) {
    held.proven = held.proven || held.id == pipe;
  }
}

void NngSocket::prove_holders() noexcept
{
  const std::lock_guard lock(m_admitted_mutex);
  for (Admitted& held : m_admitted) {
    held.proven = true;
  }
}

std::string NngSocket::latest_local_address() const
{
  const nng_pipe pipe{m_latest_pipe.load(std::memory_order_relaxed)};
  nng_sockaddr address{};
  if (pipe.id == 0 || nng_pipe_get_addr(pipe, NNG_OPT_LOCADDR, &address) != 0) {
    return "";
  }
  if (address.s_family == NNG_AF_INET) {
    char host[INET_ADDRSTRLEN] = {};
    in_addr raw{address.s_in.sa_addr};
    inet_ntop(AF_INET, &raw, host, sizeof host);
    return "tcp://" + std::string(host) + ":" + std::to_string(ntohs(address.s_in.sa_port));
  }
  if (address.s_family == NNG_AF_IPC) {
    return std::string("ipc://") + address.s_ipc.sa_path;
  }
  return "";
}

bool close_within(std::unique_ptr<NngSocket> socket, std::chrono::milliseconds limit) noexcept
{
  if (!socket)
    return true;
  try {
    auto closed = std::make_shared<std::promise<void>>();
    std::future<void> done = closed->get_future();
    std::thread closer([socket = std::move(socket), closed]() mutable {
      socket.reset();
      closed->set_value();
    });
    if (done.wait_for(limit) == std::future_status::ready) {
      closer.join();
      return true;
    }
    closer.detach();
    return false;
  } catch (...) {
    return true; // no thread to spare: the socket was destroyed (closed) where it stood
  }
}

} // namespace netprof::nng_parts
