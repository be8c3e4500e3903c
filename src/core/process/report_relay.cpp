#include "core/process/report_relay.hpp"

#include "core/process/deadline_io.hpp"
#include "core/protocol/address_proof.hpp"
#include "core/protocol/report_frame.hpp"

#include "common/unique_fd.hpp"

#include <netprof/errors.hpp>

#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace netprof {

namespace {

// Connections the lead serves at once: the other publishers (at most 15) and room for
// strangers; past it, the oldest is closed, so strangers cannot hold every place.
constexpr std::size_t max_connections = 32;
// What a refusal sent back may say, and what a sender reads of it.
constexpr std::size_t max_refusal_text = 200;
constexpr char accepted_byte = 'A';
constexpr char refused_byte = 'R';
constexpr auto retry_pause = std::chrono::milliseconds(100);

std::string errno_text(const char* what)
{
  return std::string(what) + ": " + std::strerror(errno);
}

// FNV-1a: a name per run, not a secret.
std::uint64_t name_hash(const std::string& text) noexcept
{
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

using Descriptor = transport_common::UniqueFd;

sockaddr_un abstract_address(const std::string& text, socklen_t& length)
{
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // Abstract: a leading NUL, the rest the name after '@'; nothing on disk to clean up.
  const std::string name = text.substr(1);
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return address;
}

struct AddrInfoDeleter {
  void operator()(addrinfo* info) const noexcept { freeaddrinfo(info); }
};
using AddrInfo = std::unique_ptr<addrinfo, AddrInfoDeleter>;

// Throws TransportError when the name does not resolve.
AddrInfo resolve(const LeadAddress& address, bool passive)
{
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* found = nullptr;
  const int status = getaddrinfo(address.host.c_str(), address.port.c_str(), &hints, &found);
  if (status != 0 || !found)
    throw TransportError("--lead " + address.text + ": cannot resolve '" + address.host +
                         "': " + gai_strerror(status));
  return AddrInfo(found);
}

// One try at reaching the lead: a connected socket, or -1 with `why` set.
Descriptor connect_once(const LeadAddress& address, Clock::time_point deadline,
                        const StopFlag& stop, std::string& why)
{
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_UNIX;
  if (address.tcp) {
    const AddrInfo found = resolve(address, false);
    std::memcpy(&storage, found->ai_addr, found->ai_addrlen);
    length = found->ai_addrlen;
    family = found->ai_family;
  } else {
    const sockaddr_un local = abstract_address(address.text, length);
    std::memcpy(&storage, &local, length);
  }
  Descriptor fd(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    why = errno_text("socket");
    return Descriptor();
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&storage), length) == 0)
    return fd;
  if (errno != EINPROGRESS && errno != EAGAIN) {
    why = errno_text("connect");
    return Descriptor();
  }
  if (!wait_for(fd.get(), POLLOUT, deadline, stop)) {
    why = "no answer to connect";
    return Descriptor();
  }
  int error = 0;
  socklen_t size = sizeof error;
  getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size);
  if (error != 0) {
    errno = error;
    why = errno_text("connect");
    return Descriptor();
  }
  return fd;
}

} // namespace

LeadAddress lead_address(const std::string& lead, const std::string& first_stream)
{
  LeadAddress address;
  if (lead.empty()) {
    char name[40];
    std::snprintf(name, sizeof name, "@netprof-lead-%016llx",
                  static_cast<unsigned long long>(name_hash(first_stream)));
    address.text = name;
    return address;
  }
  const std::size_t colon = lead.rfind(':');
  std::string host = colon == std::string::npos ? std::string() : lead.substr(0, colon);
  const std::string port = colon == std::string::npos ? std::string() : lead.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const bool port_ok =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
      std::stoul(port) >= 1 && std::stoul(port) <= 65535;
  if (host.empty() || !port_ok)
    throw UsageError("bad --lead value '" + lead +
                     "': give HOST:PORT (publisher 0's address the other publishers can reach, "
                     "and a port from 1 to 65535), e.g. 10.0.0.1:4200");
  address.tcp = true;
  address.text = lead;
  address.host = host;
  address.port = port;
  return address;
}

struct ReportListener::Connection {
  Descriptor fd;
  ReportNonce nonce{};
  std::vector<std::byte> received;
};

ReportListener::ReportListener(const LeadAddress& address, std::uint32_t publishers,
                               std::span<const std::byte> shared_secret)
    : m_address(address), m_publishers(publishers), m_authentication(shared_secret)
{
  initialise_sodium();
  const auto fail = [&](const char* what) {
    const std::string text = errno_text(what);
    throw TransportError("publisher 0 cannot take the other publishers' reports at " +
                         address.text + " (" + text +
                         (errno == EADDRINUSE ? "; another publisher 0 of this run may be "
                                                "running, or give --lead another address"
                                              : "") +
                         ")");
  };
  Descriptor fd;
  if (address.tcp) {
    const AddrInfo found = resolve(address, true);
    fd = Descriptor(socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0)
      fail("socket");
    const int on = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(fd.get(), found->ai_addr, found->ai_addrlen) != 0)
      fail("bind");
  } else {
    fd = Descriptor(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0)
      fail("socket");
    socklen_t length = 0;
    const sockaddr_un local = abstract_address(address.text, length);
    if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&local), length) != 0)
      fail("bind");
  }
  if (listen(fd.get(), 16) != 0)
    fail("listen");
  m_listener = fd.release();
}

ReportListener::~ReportListener()
{
  if (m_listener >= 0)
    close(m_listener);
}

void ReportListener::refuse(Connection& connection, const std::string& why)
{
  ++m_refused;
  m_last_refusal = why;
  std::string answer(1, refused_byte);
  answer.append(why, 0, max_refusal_text);
  send(connection.fd.get(), answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

void ReportListener::accept_waiting(std::vector<Connection>& connections)
{
  for (;;) {
    Descriptor fd(accept4(m_listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.get() < 0)
      return;
    Connection connection;
    connection.fd = std::move(fd);
    if (!m_address.tcp) {
      // Only this user's processes (or root's) may hand publisher 0 a report on this host.
      ucred peer{};
      socklen_t size = sizeof peer;
      if (getsockopt(connection.fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 ||
          (peer.uid != geteuid() && peer.uid != 0)) {
        refuse(connection, "a process of another user (uid " + std::to_string(peer.uid) + ")");
        continue;
      }
    }
    randombytes_buf(connection.nonce.data(), connection.nonce.size());
    // A fresh socket's buffer takes 16 bytes at once.
    if (send(connection.fd.get(), connection.nonce.data(), connection.nonce.size(),
             MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(connection.nonce.size()))
      continue;
    if (connections.size() == max_connections)
      connections.erase(connections.begin());
    connections.push_back(std::move(connection));
  }
}

bool ReportListener::serve(Connection& connection)
{
  for (;;) {
    std::byte chunk[4096];
    const ssize_t got = recv(connection.fd.get(), chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    if (got <= 0)
      return false; // closed before a whole frame: nothing to count
    connection.received.insert(connection.received.end(), chunk, chunk + got);
    const ReportFrameParse parse =
        parse_report_frame(connection.received, connection.nonce, m_publishers, m_authentication);
    if (parse.state == ReportFrameParse::State::incomplete)
      continue;
    if (parse.state == ReportFrameParse::State::refused) {
      refuse(connection, parse.refusal);
      return false;
    }
    const bool seen = std::any_of(m_reports.begin(), m_reports.end(),
                                  [&](const RelayedReport& r) { return r.id == parse.id; });
    if (seen) {
      refuse(connection, "a second report of publisher " + std::to_string(parse.id));
      return false;
    }
    m_reports.push_back({parse.id, parse.json});
    send(connection.fd.get(), &accepted_byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    return false;
  }
}

const std::vector<RelayedReport>& ReportListener::gather(Clock::time_point deadline,
                                                         const StopFlag& stop)
{
  // Connections left open by an earlier call are closed: a report cut in two by a call's end
  // would otherwise hold a place until the next.
  std::vector<Connection> connections;
  while (m_reports.size() + 1 < m_publishers && Clock::now() < deadline && !stop.requested()) {
    std::vector<pollfd> fds = {{m_listener, POLLIN, 0}};
    for (const Connection& connection : connections)
      fds.push_back({connection.fd.get(), POLLIN, 0});
    const int ready = poll(fds.data(), fds.size(), poll_millis(deadline));
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    // Served before new ones come in: the descriptors polled are these connections'.
    std::vector<Connection> still_open;
    for (std::size_t i = 0; i < connections.size(); ++i) {
      if (fds[i + 1].revents == 0 || serve(connections[i]))
        still_open.push_back(std::move(connections[i]));
    }
    connections = std::move(still_open);
    if (fds[0].revents != 0)
      accept_waiting(connections);
  }
  std::sort(m_reports.begin(), m_reports.end(),
            [](const RelayedReport& a, const RelayedReport& b) { return a.id < b.id; });
  return m_reports;
}

std::string send_report_to_lead(const LeadAddress& address, std::uint32_t id,
                                const std::string& json, std::span<const std::byte> shared_secret,
                                Clock::time_point deadline, const StopFlag& stop)
{
  const ControlAuthentication authentication(shared_secret);
  std::string why = "no answer";
  while (!stop.requested()) {
    Descriptor fd;
    try {
      fd = connect_once(address, deadline, stop, why);
    } catch (const TransportError& error) {
      return error.what();
    }
    if (fd.get() >= 0) {
      std::vector<std::byte> nonce;
      read_up_to(fd.get(), nonce, report_nonce_size, deadline, stop);
      if (nonce.size() < report_nonce_size)
        return "publisher 0 answered the connection but sent no nonce";
      ReportNonce nonce_value;
      std::copy(nonce.begin(), nonce.end(), nonce_value.begin());
      if (!write_all(fd.get(), encode_report_frame(nonce_value, id, json, authentication), deadline,
                     stop))
        return "the report could not be sent whole: " + std::string(std::strerror(errno));
      std::vector<std::byte> answer;
      read_up_to(fd.get(), answer, 1 + max_refusal_text, deadline, stop);
      if (!answer.empty() && answer.front() == std::byte{accepted_byte})
        return {};
      if (answer.empty())
        return "publisher 0 closed the connection without taking the report";
      return "publisher 0 refused the report: " +
             std::string(reinterpret_cast<const char*>(answer.data()) + 1, answer.size() - 1);
    }
    if (Clock::now() + retry_pause >= deadline)
      break;
    std::this_thread::sleep_for(retry_pause);
  }
  return stop.requested() ? "interrupted before publisher 0 took it"
                          : "publisher 0 was not there to take it (" + why + ")";
}

} // namespace netprof
