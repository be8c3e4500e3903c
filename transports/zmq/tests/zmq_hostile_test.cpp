// ZeroMQ against strangers and hostile limits (issue 18): each role reads no more than it needs,
// the publisher counts subscribed connections, ipc:// files are private whatever the umask,
// --zmq-curve keeps out whoever lacks the key file, and resource limits are checked before
// libzmq could abort. Strangers are bare libzmq sockets. Loopback and a temporary directory.

#include "zmq/zmq_curve.hpp"
#include "zmq/zmq_endpoint.hpp"
#include "zmq/zmq_limits.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"
#include "zmq_test_support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace netprof;
using namespace netprof::testing;

// The core's figures: a 52 B header, final counters of 104 B (the largest control message),
// -s 128.
constexpr std::size_t control_bytes = 52 + 104;
constexpr std::size_t data_bytes = 180;

// As the core opens it: the largest control message stated.
zeromq::EndpointSettings limited(zeromq::EndpointSettings settings)
{
  settings.largest_control_message = control_bytes;
  return settings;
}

// Once the subscriber's hello is heard, a data message of `size` bytes reaches it.
void carries(zeromq::ZmqEndpoint& publisher, zeromq::ZmqEndpoint& subscriber, std::size_t size)
{
  say_hello(subscriber, publisher);
  ASSERT_EQ(publisher.send(Bytes(size, std::byte{'N'})).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_until(subscriber, sink, 1));
}

std::string joined(const std::vector<std::string>& lines)
{
  std::string text;
  for (const std::string& line : lines) {
    text += line + "\n";
  }
  return text;
}

// --- what each role reads ---------------------------------------------------------------------

TEST(ZmqReadLimit, PublisherClosesAConnectionThatSendsMoreThanItsLargestControlMessage)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(limited(settings_for(Role::publisher, endpoint, {})));
  zeromq::ZmqEndpoint stranger(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  say_hello(stranger, publisher);

  Bytes oversized(control_bytes + 2, std::byte{'N'}); // one more than the escape byte allows
  ASSERT_EQ(stranger.send(oversized).result, SendResult::sent);
  Bytes largest(control_bytes, std::byte{'N'});
  ASSERT_EQ(subscriber.send(largest).result, SendResult::sent);

  CollectingSink sink;
  ASSERT_TRUE(receive_until(publisher, sink, 1));
  EXPECT_EQ(publisher.receive(sink, 200ms), ReceiveResult::timed_out) << "the oversized came";
  ASSERT_EQ(sink.messages.size(), 1u);
  EXPECT_EQ(sink.messages.front(), largest);
  EXPECT_NE(joined(publisher.facts().notes).find("reads messages of at most 157 B"),
            std::string::npos);
}

// Data of any size the transport carries, from the publisher: the subscriber's own -s is not
// the publisher's, necessarily.
TEST(ZmqReadLimit, SubscriberTakesThePublishersDataWhateverItsOwnSize)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(limited(settings_for(Role::publisher, endpoint, {})));
  zeromq::ZmqEndpoint subscriber(
      limited(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint})));
  carries(publisher, subscriber, 100'000);
}

TEST(ZmqReadLimit, SubscribersOwnEndpointClosesAStrangerThatSendsMoreThanAControlMessage)
{
  const std::string own = free_tcp_endpoint();
  zeromq::ZmqEndpoint subscriber(
      limited(settings_for(Role::subscriber, own, {free_tcp_endpoint()})));
  zeromq::ZmqEndpoint large(settings_for(Role::publisher, free_tcp_endpoint(), {own}));
  zeromq::ZmqEndpoint small(settings_for(Role::publisher, free_tcp_endpoint(), {own}));
  say_hello(subscriber, large);
  say_hello(subscriber, small);

  ASSERT_EQ(large.send(Bytes(control_bytes + 1, std::byte{'N'})).result, SendResult::sent);
  ASSERT_EQ(small.send(Bytes(52, std::byte{'N'})).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_until(subscriber, sink, 1));
  EXPECT_EQ(subscriber.receive(sink, 200ms), ReceiveResult::timed_out) << "the oversized came";
  EXPECT_EQ(sink.messages.front().size(), 52u);
  EXPECT_NE(joined(subscriber.facts().notes)
                .find("its own endpoint reads messages of at most "
                      "156 B"),
            std::string::npos);
}

// MADARA's other topology: with no peer of its own the subscriber's data comes to its endpoint.
TEST(ZmqReadLimit, ASubscriberThatConnectsNowhereTakesDataOnItsOwnEndpoint)
{
  const std::string own = free_tcp_endpoint();
  zeromq::ZmqEndpoint subscriber(limited(settings_for(Role::subscriber, own, {})));
  zeromq::ZmqEndpoint publisher(limited(settings_for(Role::publisher, free_tcp_endpoint(), {own})));
  carries(publisher, subscriber, 100'000);
}

// --- who subscribed ---------------------------------------------------------------------------

TEST(ZmqConnections, PublisherCountsEverySubscribedConnectionAStrangersToo)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(settings_for(Role::publisher, endpoint, {}));
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  say_hello(subscriber, publisher);
  EXPECT_EQ(publisher.facts().peak_connections, 1u);

  zmq::context_t context;
  zmq::socket_t stranger(context, zmq::socket_type::sub); // subscribes, never says hello
  stranger.set(zmq::sockopt::subscribe, "");
  stranger.connect(endpoint);
  CollectingSink nothing;
  const auto deadline = Clock::now() + 5s;
  while (publisher.facts().peak_connections < 2 && Clock::now() < deadline) {
    ASSERT_NE(publisher.receive(nothing, 20ms), ReceiveResult::failed);
  }
  EXPECT_EQ(publisher.facts().peak_connections, 2u);
  EXPECT_TRUE(nothing.messages.empty()) << "a subscription reached the core";
}

// --- ipc:// socket files ----------------------------------------------------------------------

class UmaskOf {
public:
  explicit UmaskOf(mode_t mask) : m_previous(umask(mask)) {}
  ~UmaskOf() { umask(m_previous); }
  UmaskOf(const UmaskOf&) = delete;
  UmaskOf& operator=(const UmaskOf&) = delete;

private:
  mode_t m_previous;
};

mode_t mode_of(const std::string& path)
{
  struct stat status {};
  EXPECT_EQ(lstat(path.c_str(), &status), 0) << path;
  return status.st_mode;
}

TEST(ZmqIpcFile, IsReadableAndWritableByItsOwnerOnlyWhateverTheUmask)
{
  const TemporaryDirectory directory;
  const UmaskOf everyone(0);
  const std::string path = directory.file("pub.ipc");
  const zeromq::ZmqEndpoint publisher(settings_for(Role::publisher, "ipc://" + path, {}));
  const mode_t mode = mode_of(path);
  EXPECT_TRUE(S_ISSOCK(mode));
  EXPECT_EQ(mode & 07777, 0600u);
  EXPECT_EQ(umask(0), 0u) << "the umask was not given back";
}

TEST(ZmqIpcFile, AWildcardPathLivesInADirectoryOfItsOwn)
{
  const UmaskOf everyone(0);
  const zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, "ipc://*", {}));
  const std::string bound = subscriber.facts().local_addresses.at(0);
  ASSERT_EQ(bound.rfind("ipc://", 0), 0u) << bound;
  const std::string path = bound.substr(6);
  EXPECT_EQ(mode_of(path) & 077, 0u) << path;
  const std::string directory = path.substr(0, path.rfind('/'));
  EXPECT_EQ(mode_of(directory) & 07777, 0700u) << directory;
}

// --- --zmq-curve ------------------------------------------------------------------------------

std::string key_file(const TemporaryDirectory& directory, const std::string& name,
                     std::size_t size = 32, mode_t mode = 0600)
{
  const std::string path = directory.file(name);
  std::ofstream(path, std::ios::binary) << std::string(size, static_cast<char>(name.size()));
  chmod(path.c_str(), mode);
  return path;
}

zeromq::EndpointSettings with_curve(zeromq::EndpointSettings settings, const std::string& key)
{
  settings.curve = zeromq::load_curve_keys(key);
  return limited(std::move(settings));
}

TEST(ZmqCurve, TheSameKeyFileConnectsAndCarriesBothDirections)
{
  ASSERT_TRUE(zeromq::curve_available());
  const TemporaryDirectory directory;
  const std::string key = key_file(directory, "run.key");
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(with_curve(settings_for(Role::publisher, endpoint, {}), key));
  zeromq::ZmqEndpoint subscriber(
      with_curve(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}), key));
  carries(publisher, subscriber, data_bytes);
  EXPECT_TRUE(publisher.facts().diagnoses.empty());
}

TEST(ZmqCurve, AnotherKeyOrNoneGetsNothingThroughAndIsToldWhy)
{
  const TemporaryDirectory directory;
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(
      with_curve(settings_for(Role::publisher, endpoint, {}), key_file(directory, "run.key")));
  zeromq::ZmqEndpoint wrong_key(with_curve(
      settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}), key_file(directory, "x")));
  zeromq::ZmqEndpoint no_key(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));

  CollectingSink at_publisher;
  CollectingSink at_strangers;
  const auto until = Clock::now() + 500ms;
  while (Clock::now() < until) {
    ASSERT_EQ(wrong_key.send(bytes({'N', 'w'})).result, SendResult::sent);
    ASSERT_EQ(no_key.send(bytes({'N', 'n'})).result, SendResult::sent);
    ASSERT_EQ(publisher.send(bytes({'N', 'd'})).result, SendResult::sent);
    publisher.receive(at_publisher, 10ms);
    wrong_key.receive(at_strangers, 0ms);
    no_key.receive(at_strangers, 0ms);
  }
  EXPECT_TRUE(at_publisher.messages.empty());
  EXPECT_TRUE(at_strangers.messages.empty());
  EXPECT_EQ(publisher.facts().peak_connections, 0u);
  EXPECT_NE(joined(publisher.facts().diagnoses).find("nobody got through --zmq-curve"),
            std::string::npos);
  EXPECT_NE(joined(wrong_key.facts().diagnoses).find("no publisher got through --zmq-curve"),
            std::string::npos);
}

TEST(ZmqCurve, AKeyFileIsThirtyTwoBytesOnlyItsOwnerMayReadInARegularFile)
{
  const TemporaryDirectory directory;
  const std::string fifo = directory.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const struct {
    std::string path;
    std::string reason;
  } cases[] = {
      {directory.file("missing"), "No such file or directory"},
      {key_file(directory, "shared", 32, 0640), "other users may read or change it"},
      {key_file(directory, "short", 31), "expected exactly 32 bytes, it has 31"},
      {key_file(directory, "long", 64), "expected exactly 32 bytes, it has more"},
      {fifo, "not a regular file"},
  };
  for (const auto& bad : cases) {
    try {
      zeromq::load_curve_keys(bad.path);
      ADD_FAILURE() << bad.path << " was taken";
    } catch (const UsageError& error) {
      const std::string said = error.what();
      EXPECT_EQ(said.rfind("bad --zmq-curve value '" + bad.path + "': " + bad.reason, 0), 0u)
          << said;
    }
  }
  const zeromq::CurveKeys keys = zeromq::load_curve_keys(key_file(directory, "good"));
  EXPECT_EQ(keys.server_secret.size(), 40u);
  EXPECT_EQ(keys.server_public.size(), 40u);
  EXPECT_NE(keys.server_secret, keys.server_public);
}

// --- resource limits --------------------------------------------------------------------------

// Lowers one soft limit for the life of the object (the hard one stays, so it can be raised
// back).
class SoftLimit {
public:
  SoftLimit(int resource, rlim_t value) : m_resource(resource)
  {
    getrlimit(resource, &m_previous);
    rlimit lowered = m_previous;
    lowered.rlim_cur = value;
    EXPECT_EQ(setrlimit(resource, &lowered), 0);
  }
  ~SoftLimit() { setrlimit(m_resource, &m_previous); }
  SoftLimit(const SoftLimit&) = delete;
  SoftLimit& operator=(const SoftLimit&) = delete;

private:
  int m_resource;
  rlimit m_previous{};
};

std::string refusal(const zeromq::ResourceNeeds& needs)
{
  try {
    zeromq::check_resource_limits(needs);
  } catch (const TransportError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ZmqLimits, ZeroMqNeedsTwoDescriptorsPerIoThreadAndFourMore)
{
  EXPECT_EQ(zeromq::zeromq_descriptors(1), 6u);
  EXPECT_EQ(zeromq::zeromq_descriptors(3), 10u);
  // ZeroMQ's, the bound endpoint, the connections, and one for the files at the end.
  EXPECT_EQ(zeromq::descriptors_needed({1, 4, 0}), 6u + 1u + 4u + 1u);
}

TEST(ZmqLimits, TooFewDescriptorsAreRefusedNamingTheLimitAndWhatIsNeeded)
{
  const SoftLimit limit(RLIMIT_NOFILE, 8);
  const std::string said = refusal({1, 1, 0});
  EXPECT_EQ(said.rfind("too few file descriptors for ZeroMQ: ulimit -n (RLIMIT_NOFILE) is 8, and "
                       "this process needs at least ",
                       0),
            0u)
      << said;
  EXPECT_NE(said.find("raise it with ulimit -n "), std::string::npos) << said;
}

TEST(ZmqLimits, TooLittleAddressSpaceIsRefusedNamingTheLimit)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer's runtime maps terabytes of shadow memory; under a 64 MiB limit its next
  // mmap fails and it aborts the test process itself.
  GTEST_SKIP() << "a sanitizer's runtime cannot run under a small address-space limit";
#endif
  const SoftLimit limit(RLIMIT_AS, rlim_t{64} << 20);
  const std::string said = refusal({1, 1, std::size_t{256} << 20}); // queues alone exceed it
  EXPECT_EQ(said.rfind("too little memory allowed for ZeroMQ: ulimit -v (RLIMIT_AS, address "
                       "space) is 65536 KiB",
                       0),
            0u)
      << said;
}

TEST(ZmqLimits, GenerousLimitsPass)
{
  const SoftLimit limit(RLIMIT_NOFILE, 256);
  EXPECT_EQ(refusal({1, 8, 1 << 20}), "(no error)");
}

} // namespace
