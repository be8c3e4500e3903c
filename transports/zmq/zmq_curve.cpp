#include "zmq_curve.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace netprof::zeromq {

namespace {

constexpr std::size_t z85_key_chars = 40;

[[noreturn]] void refuse(const std::string& path, const std::string& reason)
{
  throw UsageError("bad --zmq-curve value '" + path + "': " + reason +
                   " (make one with: head -c 32 /dev/urandom > FILE; chmod 600 FILE)");
}

// Closes the descriptor and wipes the secret bytes on every way out.
class SecretFile {
public:
  explicit SecretFile(int fd) : m_fd(fd) {}
  ~SecretFile()
  {
    explicit_bzero(bytes.data(), bytes.size());
    if (m_fd >= 0) {
      close(m_fd);
    }
  }
  SecretFile(const SecretFile&) = delete;
  SecretFile& operator=(const SecretFile&) = delete;

  int fd() const noexcept { return m_fd; }
  std::array<std::uint8_t, curve_key_file_bytes + 1> bytes{}; // one more, to see a longer file

private:
  int m_fd;
};

void set_key(void* socket, int option, const std::string& z85)
{
  if (zmq_setsockopt(socket, option, z85.c_str(), z85_key_chars) != 0) {
    throw TransportError(std::string("cannot set up ZeroMQ CURVE: ") + zmq_strerror(zmq_errno()));
  }
}

} // namespace

bool curve_available() noexcept
{
  return zmq_has("curve") != 0;
}

CurveKeys load_curve_keys(const std::string& path)
{
  // Not blocking, so a FIFO in its place is refused instead of waited on.
  SecretFile file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (file.fd() < 0) {
    refuse(path, std::generic_category().message(errno));
  }
  struct stat status {};
  if (fstat(file.fd(), &status) != 0 || !S_ISREG(status.st_mode)) {
    refuse(path, "not a regular file");
  }
  if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    refuse(path, "other users may read or change it (chmod 600 it)");
  }
  std::size_t got = 0;
  while (got < file.bytes.size()) {
    const ssize_t n = read(file.fd(), file.bytes.data() + got, file.bytes.size() - got);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      refuse(path, std::generic_category().message(errno));
    }
    if (n == 0) {
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  if (got != curve_key_file_bytes) {
    refuse(path, "expected exactly 32 bytes, it has " +
                     std::string(got > curve_key_file_bytes ? "more" : std::to_string(got)));
  }
  std::array<char, z85_key_chars + 1> secret{};
  std::array<char, z85_key_chars + 1> public_key{};
  if (zmq_z85_encode(secret.data(), file.bytes.data(), curve_key_file_bytes) == nullptr ||
      zmq_curve_public(public_key.data(), secret.data()) != 0) {
    throw UsageError("--zmq-curve needs a libzmq built with CURVE, and this one is not");
  }
  CurveKeys keys{std::string(secret.data(), z85_key_chars),
                 std::string(public_key.data(), z85_key_chars)};
  explicit_bzero(secret.data(), secret.size());
  return keys;
}

void apply_curve(void* socket, const CurveKeys& keys, bool server)
{
  if (server) {
    const int on = 1;
    if (zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &on, sizeof on) != 0) {
      throw TransportError(std::string("cannot set up ZeroMQ CURVE: ") + zmq_strerror(zmq_errno()));
    }
    set_key(socket, ZMQ_CURVE_SECRETKEY, keys.server_secret);
    return;
  }
  std::array<char, z85_key_chars + 1> public_key{};
  std::array<char, z85_key_chars + 1> secret{};
  if (zmq_curve_keypair(public_key.data(), secret.data()) != 0) {
    throw TransportError(std::string("cannot make a CURVE key pair: ") + zmq_strerror(zmq_errno()));
  }
  set_key(socket, ZMQ_CURVE_SERVERKEY, keys.server_public);
  set_key(socket, ZMQ_CURVE_PUBLICKEY, std::string(public_key.data(), z85_key_chars));
  set_key(socket, ZMQ_CURVE_SECRETKEY, std::string(secret.data(), z85_key_chars));
  explicit_bzero(secret.data(), secret.size());
}

} // namespace netprof::zeromq
