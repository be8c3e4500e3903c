// ZeroMQ beyond the transport contract: strict --zmq parsing with one-line messages, the
// high-water-mark rule, ipc:// socket files (stale, live, not a socket), the local pair's
// arguments, bind errors, both topologies, the upstream escape and back-pressure under
// --zmq-nodrop. Loopback and a temporary directory only.

#include "zmq/zero_copy_pool.hpp"
#include "zmq/zmq_address.hpp"
#include "zmq/zmq_endpoint.hpp"
#include "zmq/zmq_transport.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"
#include "zmq_test_support.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace netprof {
namespace {

using testing::CollectingSink;

using namespace std::chrono_literals;
using testing::Bytes;
using testing::bytes;
using testing::free_tcp_endpoint;
using testing::PlannedTransport;
using testing::receive_until;
using testing::say_hello;
using testing::settings_for;
using testing::TemporaryDirectory;
namespace fs = std::filesystem;

std::string parse_message(const std::string& value, zeromq::Use use = zeromq::Use::bind)
{
  try {
    zeromq::parse_address(value, use);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

std::unique_ptr<PlannedTransport> zmq_with(const std::vector<std::string>& arguments)
{
  return netprof::testing::planned(netprof::zmq_transport(), arguments);
}

// What the local pair forwards of a zmq command line to each child, beside the endpoints.
netprof::LocalPairArguments forwarded(const std::vector<std::string>& arguments)
{
  const netprof::TransportDescriptor transport = netprof::zmq_transport();
  const std::vector<const netprof::OptionGroup*> groups = {&transport.options};
  return netprof::route_to_local_pair(netprof::parse_options(arguments, groups), groups);
}

// A Unix stream socket bound at `path`: listening (a live endpoint) or closed without unlinking
// (what a crashed process leaves behind).
int bind_unix_socket(const std::string& path, bool listen_on_it)
{
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  EXPECT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  if (listen_on_it) {
    EXPECT_EQ(listen(fd, 4), 0);
    return fd;
  }
  close(fd);
  return -1;
}

// --- parsing --------------------------------------------------------------------------------

TEST(ZmqAddress, AcceptsTcpAndIpcForms)
{
  const auto tcp = zeromq::parse_address("tcp://127.0.0.1:5555", zeromq::Use::connect);
  EXPECT_EQ(tcp.scheme, zeromq::Scheme::tcp);
  EXPECT_EQ(tcp.text, "tcp://127.0.0.1:5555");
  EXPECT_FALSE(tcp.wildcard);

  const auto any = zeromq::parse_address("tcp://*:*", zeromq::Use::bind);
  EXPECT_TRUE(any.wildcard);
  EXPECT_EQ(any.host, "*");

  const auto v6 = zeromq::parse_address("tcp://[::1]:5555", zeromq::Use::connect);
  EXPECT_TRUE(v6.ipv6);
  EXPECT_EQ(v6.text, "tcp://[::1]:5555");

  const auto ipc = zeromq::parse_address("ipc:///tmp/x.ipc", zeromq::Use::connect);
  EXPECT_EQ(ipc.scheme, zeromq::Scheme::ipc);
  EXPECT_TRUE(ipc.is_ipc_file());
  EXPECT_FALSE(zeromq::parse_address("ipc://@abstract", zeromq::Use::bind).is_ipc_file());
  EXPECT_TRUE(zeromq::parse_address("ipc://*", zeromq::Use::bind).wildcard);
}

TEST(ZmqAddress, RefusesWithOneLineNamingTheValue)
{
  struct Case {
    std::string value;
    std::string expected;
  };
  const Case cases[] = {
      {"127.0.0.1:5555", "expected tcp://host:port or ipc://path"},
      {"inproc://x", "separate processes"},
      {"pgm://eth0;239.1.1.1:5555", "not supported here"},
      {"foo://bar", "unknown scheme 'foo'"},
      {"tcp://127.0.0.1", "the port is missing"},
      {"tcp://127.0.0.1:", "the port is missing"},
      {"tcp://:5555", "the host is missing"},
      {"tcp://127.0.0.1:65536", "not a number 0..65535"},
      {"tcp://127.0.0.1:+5", "not a number 0..65535"},
      {"tcp://::1:5555", "needs brackets"},
      {"tcp://[::1:5555", "expected tcp://[ipv6]:port"},
      {"tcp://300.1.1.1:5555", "not an IPv4 address"},
      {"tcp://bad_host!:5555", "not a valid host or interface name"},
      {"ipc://", "the path is missing"},
      {"ipc://@", "after the @"},
      {"ipc:///" + std::string(200, 'a'), "at most 107"},
  };
  for (const Case& c : cases) {
    const std::string message = parse_message(c.value);
    EXPECT_NE(message.find("'" + c.value + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.value << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(ZmqAddress, InprocOnlyWhereItIsAllowedAndOnlyByName)
{
  const auto allowed = zeromq::Inproc::allowed;
  const auto inproc = zeromq::parse_address("inproc://pair", zeromq::Use::connect, allowed);
  EXPECT_EQ(inproc.scheme, zeromq::Scheme::inproc);
  EXPECT_EQ(inproc.text, "inproc://pair");
  EXPECT_FALSE(inproc.is_ipc_file());
  EXPECT_FALSE(inproc.wildcard);
  for (const std::string value : {"inproc://", "inproc://*"}) {
    try {
      zeromq::parse_address(value, zeromq::Use::bind, allowed);
      ADD_FAILURE() << value << " was accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("the name is missing"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_NE(parse_message("inproc://pair").find("--local-pair --threads"), std::string::npos);
}

TEST(ZmqAddress, OnlyABoundEndpointMayLeaveThePortOrPathOpen)
{
  const auto connect = zeromq::Use::connect;
  EXPECT_NE(parse_message("tcp://127.0.0.1:*", connect).find("needs a real port"),
            std::string::npos);
  EXPECT_NE(parse_message("tcp://127.0.0.1:0", connect).find("needs a real port"),
            std::string::npos);
  EXPECT_NE(parse_message("tcp://*:5555", connect).find("only binds"), std::string::npos);
  EXPECT_NE(parse_message("ipc://*", connect).find("only binds"), std::string::npos);
  EXPECT_NE(parse_message("tcp://no-such-host.invalid:5555", connect).find("cannot resolve"),
            std::string::npos);
  EXPECT_EQ(parse_message("tcp://localhost:5555", connect), "(no error)");
}

// --- the high-water mark ------------------------------------------------------------------

TEST(ZmqHighWaterMark, HoldsAboutQueueLengthBytesOfMessages)
{
  EXPECT_EQ(zeromq::high_water_mark(0, 180), zeromq::default_high_water_mark);
  EXPECT_EQ(zeromq::high_water_mark(1'000'000, 180), 5556); // rounded up
  EXPECT_EQ(zeromq::high_water_mark(1'800, 180), 10);
  EXPECT_EQ(zeromq::high_water_mark(1'000'000, 16'777'268), zeromq::min_high_water_mark);
  EXPECT_EQ(zeromq::high_water_mark(400'000'000, 16'777'268), 24);
  EXPECT_EQ(zeromq::high_water_mark(SIZE_MAX, 1), INT_MAX);
  EXPECT_EQ(zeromq::high_water_mark(1000, 0), 1000); // a zero size counts as one byte
}

// --- ipc:// socket files ------------------------------------------------------------------

TEST(ZmqIpcFile, NothingThereNeedsNothing)
{
  const TemporaryDirectory directory;
  const auto address = zeromq::parse_address("ipc://" + directory.file("a.ipc"), zeromq::Use::bind);
  EXPECT_FALSE(zeromq::prepare_ipc_bind(address).removed_stale);
}

TEST(ZmqIpcFile, StaleSocketIsRemoved)
{
  const TemporaryDirectory directory;
  const std::string path = directory.file("stale.ipc");
  bind_unix_socket(path, false);
  ASSERT_TRUE(fs::exists(fs::symlink_status(path)));
  const auto address = zeromq::parse_address("ipc://" + path, zeromq::Use::bind);
  EXPECT_TRUE(zeromq::prepare_ipc_bind(address).removed_stale);
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
}

TEST(ZmqIpcFile, LiveSocketIsRefusedAndKept)
{
  const TemporaryDirectory directory;
  const std::string path = directory.file("live.ipc");
  const int listener = bind_unix_socket(path, true);
  const auto address = zeromq::parse_address("ipc://" + path, zeromq::Use::bind);
  try {
    zeromq::prepare_ipc_bind(address);
    ADD_FAILURE() << "a live socket was not refused";
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("ipc://" + path + ": address in use"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::exists(fs::symlink_status(path)));
  close(listener);
}

TEST(ZmqIpcFile, AnythingButASocketIsRefusedAndKept)
{
  const TemporaryDirectory directory;
  const std::string path = directory.file("regular");
  std::ofstream(path) << "precious";
  const auto address = zeromq::parse_address("ipc://" + path, zeromq::Use::bind);
  EXPECT_THROW(zeromq::prepare_ipc_bind(address), TransportError);
  std::ifstream file(path);
  std::string content;
  file >> content;
  EXPECT_EQ(content, "precious");
}

TEST(ZmqIpcFile, EndpointRemovesItsOwnFileOnlyAndReportsAStaleOne)
{
  const TemporaryDirectory directory;
  const std::string path = directory.file("own.ipc");
  bind_unix_socket(path, false);
  {
    zeromq::ZmqEndpoint endpoint(settings_for(Role::publisher, "ipc://" + path, {}));
    const auto facts = endpoint.facts();
    EXPECT_EQ(facts.local_addresses, std::vector<std::string>{"ipc://" + path});
    bool noted = false;
    for (const std::string& note : facts.notes) {
      noted = noted || note.find("removed a stale socket file at " + path) != std::string::npos;
    }
    EXPECT_TRUE(noted);
    EXPECT_TRUE(fs::exists(fs::symlink_status(path)));
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << "its own socket file was left behind";
}

// --- the transport's options --------------------------------------------------------------

TEST(ZmqTransport, ValidateChecksEveryEndpointAndTheThreadCount)
{
  EXPECT_NO_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:5555"})->plan_for(Role::publisher));
  EXPECT_NO_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:5556", "--zmq", "tcp://127.0.0.1:5555"})
                      ->plan_for(Role::subscriber));
  EXPECT_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:5555", "--zmq", "tcp://127.0.0.1:5555"})
                   ->plan_for(Role::publisher),
               UsageError);
  EXPECT_THROW(zmq_with({"--zmq", "tcp://*:5555", "--zmq", "tcp://127.0.0.1:5555"})
                   ->plan_for(Role::publisher),
               UsageError);
  EXPECT_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:1", "--zmq", "tcp://127.0.0.1:2", "--zmq",
                         "tcp://127.0.0.1:2"})
                   ->plan_for(Role::publisher),
               UsageError);
  for (const char* threads : {"0", "65", "x", "-1", "1.5"}) {
    EXPECT_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", threads})
                     ->plan_for(Role::publisher),
                 UsageError)
        << threads;
  }
}

std::string validate_message(const std::vector<std::string>& arguments, Role role)
{
  try {
    zmq_with(arguments)->plan_for(role);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ZmqTransport, PublisherMayNotLeaveItsOwnEndpointToZeroMq)
{
  // Its subscribers connect to it, and none can be given a port or path ZeroMQ picks: it would
  // wait out --wait alone.
  for (const char* open : {"tcp://127.0.0.1:0", "tcp://127.0.0.1:*", "tcp://*:*"}) {
    EXPECT_EQ(validate_message({"--zmq", open}, Role::publisher),
              std::string("bad --zmq value '") + open +
                  "': a publisher needs a port other than 0 or *, since its subscribers connect "
                  "to it (only --local-pair picks one itself)");
  }
  EXPECT_EQ(validate_message({"--zmq", "ipc://*"}, Role::publisher),
            "bad --zmq value 'ipc://*': a publisher needs a definite path, since its "
            "subscribers connect to it (only --local-pair picks one itself)");
}

TEST(ZmqTransport, OwnEndpointLeftOpenIsFineWhereNobodyHasToFindIt)
{
  // A subscriber connects to the publisher; a publisher given subscribers connects to them.
  EXPECT_EQ(validate_message({"--zmq", "tcp://127.0.0.1:*", "--zmq", "tcp://127.0.0.1:5555"},
                             Role::subscriber),
            "(no error)");
  EXPECT_EQ(validate_message({"--zmq", "ipc://*", "--zmq", "ipc:///tmp/p.ipc"}, Role::subscriber),
            "(no error)");
  EXPECT_EQ(validate_message({"--zmq", "tcp://127.0.0.1:0", "--zmq", "tcp://127.0.0.1:5555"},
                             Role::publisher),
            "(no error)");
}

TEST(ZmqTransport, LocalPairMakesThePublishersEndpointDefinite)
{
  // The parent does not validate itself as a publisher; each child does, with its role.
  for (const char* given : {"tcp://127.0.0.1:*", "ipc://*"}) {
    const auto pair = zmq_with({"--zmq", given})->pair();
    EXPECT_EQ(validate_message(pair.publisher, Role::publisher), "(no error)") << given;
    EXPECT_EQ(validate_message(pair.subscriber, Role::subscriber), "(no error)") << given;
  }
}

TEST(ZmqTransport, NamedOnlyByZmqAndReadsOnlyItsOwnOptions)
{
  const auto setting_only = zmq_with({"--zmq-nodrop"});
  EXPECT_TRUE(setting_only->selected());
  EXPECT_FALSE(setting_only->named());
  const auto transport = zmq_with({"--zmq", "ipc:///tmp/p.ipc"});
  EXPECT_TRUE(transport->named());
  for (const char* own : {"zmq", "zmq-io-threads", "zmq-nodrop", "zmq-zero-copy"}) {
    EXPECT_TRUE(transport->reads_option(own)) << own;
  }
  for (const char* other : {"fragment-size", "udp-batch", "mc-ttl", "shm-history", "udp"}) {
    EXPECT_FALSE(transport->reads_option(other)) << other;
  }
}

TEST(ZmqTransport, NoEndpointIsRefusedForARoleButNotForTheLocalPair)
{
  auto transport = zmq_with({"--zmq-nodrop"});
  EXPECT_THROW(transport->plan_for(Role::publisher), UsageError);
  EXPECT_NO_THROW(transport->pair()); // the local pair picks its own
}

TEST(ZmqTransport, LocalPairPicksFreeLoopbackPortsByDefault)
{
  const auto arguments = zmq_with({})->pair();
  ASSERT_EQ(arguments.publisher.size(), 2u);
  ASSERT_EQ(arguments.subscriber.size(), 4u);
  EXPECT_EQ(arguments.publisher[0], "--zmq");
  EXPECT_EQ(arguments.publisher[1].rfind("tcp://127.0.0.1:", 0), 0u);
  EXPECT_EQ(arguments.subscriber[3], arguments.publisher[1]) << "connects to the publisher's";
  EXPECT_NE(arguments.subscriber[1], arguments.publisher[1]);
}

TEST(ZmqTransport, LocalPairWithOneEndpointGivesTheSubscriberOneOfTheSameKind)
{
  const auto tcp = zmq_with({"--zmq", "tcp://*:*", "--zmq-nodrop"})->pair();
  EXPECT_EQ(tcp.publisher[1].rfind("tcp://*:", 0), 0u);
  EXPECT_EQ(tcp.subscriber[1].rfind("tcp://127.0.0.1:", 0), 0u);
  EXPECT_EQ(tcp.subscriber[3], "tcp://127.0.0.1:" + tcp.publisher[1].substr(8));
  const auto nodrop = forwarded({"--zmq", "tcp://*:*", "--zmq-nodrop"});
  EXPECT_EQ(nodrop.publisher, std::vector<std::string>{"--zmq-nodrop"});
  EXPECT_EQ(nodrop.subscriber, std::vector<std::string>{"--zmq-nodrop"});

  const auto ipc = zmq_with({"--zmq", "ipc://*"})->pair();
  EXPECT_NE(ipc.publisher[1].find("publisher.ipc"), std::string::npos) << ipc.publisher[1];
  EXPECT_NE(ipc.subscriber[1].find("subscriber.ipc"), std::string::npos) << ipc.subscriber[1];
  EXPECT_EQ(ipc.subscriber[3], ipc.publisher[1]);

  const auto fixed = zmq_with({"--zmq", "ipc:///tmp/p.ipc"})->pair();
  EXPECT_EQ(fixed.publisher[1], "ipc:///tmp/p.ipc");
  EXPECT_NE(fixed.subscriber[1], fixed.publisher[1]);
}

TEST(ZmqTransport, LocalPairWithTwoEndpointsUsesThemAndRefusesThree)
{
  const std::vector<std::string> given = {
      "--zmq", "ipc:///tmp/a.ipc", "--zmq", "ipc:///tmp/b.ipc", "--zmq-io-threads", "2"};
  const auto pair = zmq_with(given)->pair();
  EXPECT_EQ(pair.publisher, (std::vector<std::string>{"--zmq", "ipc:///tmp/a.ipc"}));
  EXPECT_EQ(pair.subscriber,
            (std::vector<std::string>{"--zmq", "ipc:///tmp/b.ipc", "--zmq", "ipc:///tmp/a.ipc"}));
  const auto threads = forwarded(given);
  EXPECT_EQ(threads.publisher, (std::vector<std::string>{"--zmq-io-threads", "2"}));
  EXPECT_EQ(threads.subscriber, threads.publisher);
  EXPECT_THROW(
      zmq_with({"--zmq", "ipc:///tmp/a", "--zmq", "ipc:///tmp/b", "--zmq", "ipc:///tmp/c"})->pair(),
      UsageError);
}

// inproc:// joins the threads of one process only: the transport takes it once told that its
// roles are threads (--local-pair --threads), and then gives the subscriber a name of its own.
TEST(ZmqTransport, InprocIsForTheThreadsOfALocalPair)
{
  const auto processes = zmq_with({"--zmq", "inproc://np"});
  EXPECT_THROW(processes->pair(), UsageError);

  const auto threads = zmq_with({"--zmq", "inproc://np"});
  threads->set_threads_of_one_process(true);
  const auto pair = threads->pair();
  EXPECT_EQ(pair.publisher, (std::vector<std::string>{"--zmq", "inproc://np"}));
  EXPECT_EQ(pair.subscriber,
            (std::vector<std::string>{"--zmq", "inproc://np-subscriber", "--zmq", "inproc://np"}));
  EXPECT_TRUE(threads->descriptor().flags.threads);
}

TEST(ZmqTransport, CurveIsRefusedOverInproc)
{
  if (!zeromq::curve_available()) {
    GTEST_SKIP() << "this libzmq has no CURVE";
  }
  TemporaryDirectory directory;
  const std::string key = directory.file("key");
  std::ofstream(key) << std::string(32, 'k');
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  const auto transport = zmq_with({"--zmq", "inproc://np", "--zmq-curve", key});
  transport->set_threads_of_one_process(true);
  try {
    transport->pair();
    ADD_FAILURE() << "--zmq-curve was taken over inproc://";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("inproc:// has none"), std::string::npos)
        << error.what();
  }
}

// --- endpoints ----------------------------------------------------------------------------

TEST(ZmqEndpoint, PortInUseIsATransportErrorNamingTheEndpoint)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint first(settings_for(Role::publisher, endpoint, {}));
  try {
    zeromq::ZmqEndpoint second(settings_for(Role::publisher, endpoint, {}));
    ADD_FAILURE() << "the second bind succeeded";
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot bind ZeroMQ " + endpoint), std::string::npos)
        << error.what();
  }
}

TEST(ZmqEndpoint, MissingIpcDirectoryIsATransportError)
{
  EXPECT_THROW(zeromq::ZmqEndpoint(settings_for(Role::publisher, "ipc:///no/such/dir/x.ipc", {})),
               TransportError);
}

// The upstream direction: bytes that an XSUB would take for a subscription (a leading 0 or 1)
// still arrive exactly, as do the escape byte itself and an empty message; the publisher's own
// subscription notifications never reach the sink.
TEST(ZmqEndpoint, BackChannelCarriesAnyBytesExactly)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint publisher(settings_for(Role::publisher, endpoint, {}));
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  const std::vector<Bytes> upstream = {bytes({0, 1, 2}), bytes({1}),    bytes({1, 'a'}),
                                       bytes({1, 'a'}),  bytes({2, 7}), bytes({}),
                                       bytes({'N', 0})};
  for (const Bytes& message : upstream) {
    ASSERT_EQ(subscriber.send(message).result, SendResult::sent);
  }
  CollectingSink sink;
  ASSERT_TRUE(receive_until(publisher, sink, upstream.size()));
  EXPECT_EQ(sink.messages, upstream);
  EXPECT_EQ(publisher.receive(sink, 50ms), ReceiveResult::timed_out) << "something extra came";

  ASSERT_EQ(publisher.send(bytes({0, 1})).result, SendResult::sent);
  CollectingSink downstream;
  ASSERT_TRUE(receive_until(subscriber, downstream, 1));
  EXPECT_EQ(downstream.messages.front(), bytes({0, 1}));
  EXPECT_EQ(downstream.deliveries.front().wire_bytes, 2u + 2u); // ZMTP: flags and a short size
}

// MADARA's other topology: the subscriber binds and the publisher connects to it.
TEST(ZmqEndpoint, PublisherMayConnectToASubscriber)
{
  const std::string endpoint = free_tcp_endpoint();
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, endpoint, {}));
  zeromq::ZmqEndpoint publisher(settings_for(Role::publisher, free_tcp_endpoint(), {endpoint}));

  say_hello(subscriber, publisher);

  const Bytes large(300, std::byte{'d'});
  ASSERT_EQ(publisher.send(large).result, SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(subscriber, at_subscriber, 1));
  EXPECT_EQ(at_subscriber.messages.front(), large);
  EXPECT_EQ(at_subscriber.deliveries.front().wire_bytes, 300u + 9u); // ZMTP: flags, long size
}

// Under --zmq-nodrop a subscriber that stops reading pushes back instead of losing messages.
TEST(ZmqEndpoint, NoDropPushesBackAtTheHighWaterMark)
{
  const std::string endpoint = free_tcp_endpoint();
  auto publisher_settings = settings_for(Role::publisher, endpoint, {});
  publisher_settings.no_drop = true;
  publisher_settings.queue_length_bytes = 1; // the smallest queues there are
  zeromq::ZmqEndpoint publisher(publisher_settings);
  auto subscriber_settings = settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint});
  subscriber_settings.queue_length_bytes = 1;
  zeromq::ZmqEndpoint subscriber(subscriber_settings);

  ASSERT_EQ(subscriber.send(bytes({'N', 'h'})).result, SendResult::sent);
  CollectingSink hello;
  ASSERT_TRUE(receive_until(publisher, hello, 1)); // its subscription is in place now

  const Bytes message(64 * 1024, std::byte{'d'});
  netprof::SendOutcome outcome;
  const auto deadline = Clock::now() + 5s;
  std::size_t sent = 0;
  while (outcome.sent() && Clock::now() < deadline) {
    outcome = publisher.send(message);
    sent += outcome.sent();
  }
  EXPECT_EQ(outcome.result, SendResult::back_pressured) << "after " << sent << " messages";
  EXPECT_EQ(outcome.cause, netprof::SendCause::high_water_mark);
  EXPECT_GT(sent, 0u);

  CollectingSink drained;
  ASSERT_TRUE(receive_until(subscriber, drained, sent));
  EXPECT_EQ(subscriber.receive(drained, 50ms), ReceiveResult::timed_out);
  EXPECT_EQ(drained.messages.size(), sent) << "a message was dropped at the high-water mark";
}

TEST(ZmqEndpoint, FactsStateTheHighWaterMarkAndDropPolicy)
{
  auto settings = settings_for(Role::publisher, free_tcp_endpoint(), {});
  settings.queue_length_bytes = 1'000'000;
  zeromq::ZmqEndpoint publisher(settings);
  std::string notes;
  for (const std::string& note : publisher.facts().notes) {
    notes += note + "\n";
  }
  EXPECT_NE(notes.find("high-water mark 5556 messages"), std::string::npos) << notes;
  EXPECT_NE(notes.find("drops silently"), std::string::npos) << notes;
  EXPECT_NE(notes.find("TCP_NODELAY"), std::string::npos) << notes;
  EXPECT_EQ(publisher.facts().granted_send_buffer_bytes, 1'000'000u);
}

// --- zero-copy sends ---------------------------------------------------------------------------

TEST(ZmqZeroCopyPool, LendsEachBufferOnceUntilZeroMqGivesItBack)
{
  const Bytes payload(1000, std::byte{'p'});
  zeromq::ZeroCopyPool pool(payload, 2);
  const Bytes header = bytes({'h', 1});
  zmq_msg_t first;
  zmq_msg_t second;
  zmq_msg_t third;
  ASSERT_TRUE(pool.lend(first, header));
  ASSERT_TRUE(pool.lend(second, header));
  EXPECT_FALSE(pool.lend(third, header)) << "both buffers are still lent";
  EXPECT_EQ(pool.outstanding(), 2u);

  const auto* data = static_cast<const std::byte*>(zmq_msg_data(&first));
  ASSERT_EQ(zmq_msg_size(&first), header.size() + payload.size());
  EXPECT_TRUE(std::equal(header.begin(), header.end(), data));
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), data + header.size()));

  zmq_msg_close(&first); // what ZeroMQ does once the message is written
  EXPECT_EQ(pool.outstanding(), 1u);
  ASSERT_TRUE(pool.lend(third, bytes({'x'})));
  zmq_msg_close(&second);
  zmq_msg_close(&third);
  EXPECT_EQ(pool.outstanding(), 0u);
}

TEST(ZmqZeroCopy, EveryMessageArrivesWithItsOwnHeaderThoughTheSenderRewritesIt)
{
  const std::string endpoint = free_tcp_endpoint();
  auto publisher_settings = settings_for(Role::publisher, endpoint, {});
  publisher_settings.zero_copy_from = 1000;
  publisher_settings.no_drop = true; // every message must arrive
  zeromq::ZmqEndpoint publisher(publisher_settings);
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  ASSERT_EQ(subscriber.send(bytes({'N', 'h'})).result, SendResult::sent);
  CollectingSink hello;
  ASSERT_TRUE(receive_until(publisher, hello, 1)); // its subscription is in place now

  // As the core does: one buffer, a header rewritten in place before each send.
  constexpr std::size_t header_size = 8;
  Bytes message(header_size + 100'000);
  for (std::size_t i = header_size; i < message.size(); ++i) {
    message[i] = static_cast<std::byte>(i * 7);
  }
  publisher.keep_payload(std::span<const std::byte>(message).subspan(header_size));
  constexpr int count = 40;
  for (int i = 0; i < count; ++i) {
    std::fill_n(message.begin(), header_size, static_cast<std::byte>(i));
    SendResult result = SendResult::back_pressured;
    const auto deadline = Clock::now() + 5s;
    while (result == SendResult::back_pressured && Clock::now() < deadline) {
      result = publisher.send(message).result;
    }
    ASSERT_EQ(result, SendResult::sent);
  }
  std::fill_n(message.begin(), header_size, std::byte{0xff});

  CollectingSink received;
  ASSERT_TRUE(receive_until(subscriber, received, count));
  for (int i = 0; i < count; ++i) {
    Bytes expected = message;
    std::fill_n(expected.begin(), header_size, static_cast<std::byte>(i));
    EXPECT_TRUE(received.messages[static_cast<std::size_t>(i)] == expected) << "message " << i;
  }
  std::string notes;
  for (const std::string& note : publisher.facts().notes) {
    notes += note + "\n";
  }
  EXPECT_NE(notes.find("zero-copy sends: " + std::to_string(count) + " of " +
                       std::to_string(count) + " data messages"),
            std::string::npos)
      << notes;
}

// Two inproc:// endpoints of one process (the threads of --local-pair --threads) share its
// context, or they could not meet. Lent buffers travel to the subscriber by reference there,
// so they must outlive the publisher's endpoint: what it sent is still read, intact, after it
// is gone (under ASan, a freed buffer would be reported here).
TEST(ZmqZeroCopy, InprocPeerReadsLentBuffersAfterThePublisherIsGone)
{
  const auto inproc = [](const std::string& text) {
    return zeromq::parse_address(text, zeromq::Use::bind, zeromq::Inproc::allowed);
  };
  constexpr std::size_t payload = 5000;
  auto publisher_settings = settings_for(Role::publisher, "tcp://127.0.0.1:*", {});
  publisher_settings.own = inproc("inproc://zero-copy");
  publisher_settings.message_bytes = 8 + payload; // a high-water mark, and so a pool, to match
  publisher_settings.zero_copy_from = 1000;
  publisher_settings.no_drop = true;
  auto subscriber_settings = settings_for(Role::subscriber, "tcp://127.0.0.1:*", {});
  subscriber_settings.own = inproc("inproc://zero-copy-subscriber");
  subscriber_settings.peers = {inproc("inproc://zero-copy")};
  zeromq::ZmqEndpoint subscriber(subscriber_settings);

  constexpr int count = 8;
  Bytes message(8 + payload, std::byte{'p'});
  {
    zeromq::ZmqEndpoint publisher(publisher_settings);
    say_hello(subscriber, publisher);
    publisher.keep_payload(std::span<const std::byte>(message).subspan(8));
    for (int i = 0; i < count; ++i) {
      std::fill_n(message.begin(), 8, static_cast<std::byte>(i));
      ASSERT_EQ(publisher.send(message).result, SendResult::sent);
    }
  }
  CollectingSink received;
  ASSERT_TRUE(receive_until(subscriber, received, count));
  for (int i = 0; i < count; ++i) {
    std::fill_n(message.begin(), 8, static_cast<std::byte>(i));
    EXPECT_TRUE(received.messages[static_cast<std::size_t>(i)] == message) << "message " << i;
  }
}

// Lending is by the payload's place, not its bytes: the same bytes elsewhere (hellos, END,
// counters are built in other buffers) are copied.
TEST(ZmqZeroCopy, OnlyMessagesEndingWithTheKeptPayloadLendAndEveryMessageArrives)
{
  const std::string endpoint = free_tcp_endpoint();
  auto publisher_settings = settings_for(Role::publisher, endpoint, {});
  publisher_settings.zero_copy_from = 100;
  publisher_settings.no_drop = true;
  zeromq::ZmqEndpoint publisher(publisher_settings);
  EXPECT_TRUE(publisher.facts().capabilities.lends_announced_payload);
  zeromq::ZmqEndpoint subscriber(settings_for(Role::subscriber, free_tcp_endpoint(), {endpoint}));
  EXPECT_FALSE(subscriber.facts().capabilities.lends_announced_payload);
  ASSERT_EQ(subscriber.send(bytes({'N', 'h'})).result, SendResult::sent);
  CollectingSink hello;
  ASSERT_TRUE(receive_until(publisher, hello, 1));

  Bytes message(4 + 1000, std::byte{'p'});
  publisher.keep_payload(std::span<const std::byte>(message).subspan(4));
  std::fill_n(message.begin(), 4, std::byte{'N'});
  const Bytes same_bytes_elsewhere = message;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(publisher.send(same_bytes_elsewhere).result, SendResult::sent);
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(publisher.send(message).result, SendResult::sent);
  }
  CollectingSink received;
  ASSERT_TRUE(receive_until(subscriber, received, 5));
  for (const Bytes& arrived : received.messages) {
    EXPECT_TRUE(arrived == message);
  }
  std::string notes;
  for (const std::string& note : publisher.facts().notes) {
    notes += note + "\n";
  }
  EXPECT_NE(notes.find("zero-copy sends: 2 of 2 data messages"), std::string::npos) << notes;
}

// The core's header size comes with the request: the largest message is 16 MiB of payload
// behind it.
TEST(ZmqEndpoint, LargestMessageMakesRoomForTheCoresHeader)
{
  auto settings = settings_for(Role::publisher, free_tcp_endpoint(), {});
  settings.header_bytes = 52;
  zeromq::ZmqEndpoint publisher(settings);
  EXPECT_EQ(publisher.facts().max_message_size, (std::size_t{16} << 20) + 52);
  EXPECT_EQ(publisher.send(Bytes((std::size_t{16} << 20) + 53)).result, SendResult::failed);
}

TEST(ZmqZeroCopy, OffMeansNoBuffersAndNoNote)
{
  auto settings = settings_for(Role::publisher, free_tcp_endpoint(), {});
  settings.zero_copy_from = 0;
  zeromq::ZmqEndpoint publisher(settings);
  EXPECT_FALSE(publisher.facts().capabilities.lends_announced_payload);
  const Bytes payload(100'000, std::byte{'p'});
  publisher.keep_payload(payload);
  ASSERT_EQ(publisher.send(payload).result, SendResult::sent);
  for (const std::string& note : publisher.facts().notes) {
    EXPECT_EQ(note.find("zero-copy"), std::string::npos) << note;
  }
}

TEST(ZmqZeroCopy, BuffersCoverTheHighWaterMarkWithinTheBudget)
{
  EXPECT_EQ(zeromq::ZmqEndpoint::zero_copy_buffers(25, 4'000'000), 27u);
  EXPECT_EQ(zeromq::ZmqEndpoint::zero_copy_buffers(1000, std::size_t{16} << 20), 16u);
  EXPECT_EQ(zeromq::ZmqEndpoint::zero_copy_buffers(1, 100), 4u);
}

TEST(ZmqZeroCopy, LocalPairGivesTheOptionToThePublisherOnly)
{
  const auto arguments = forwarded({"--zmq", "ipc://*", "--zmq-zero-copy", "4096"});
  EXPECT_EQ(arguments.publisher, (std::vector<std::string>{"--zmq-zero-copy", "4096"}));
  EXPECT_TRUE(arguments.subscriber.empty());
}

TEST(ZmqZeroCopy, OptionTakesAByteCountOrRefusesWithOneLine)
{
  EXPECT_NO_THROW(zmq_with({"--zmq", "tcp://127.0.0.1:5000", "--zmq-zero-copy", "0"})
                      ->plan_for(Role::publisher));
  try {
    zmq_with({"--zmq", "tcp://127.0.0.1:5000", "--zmq-zero-copy", "-1"})->plan_for(Role::publisher);
    FAIL() << "a negative size was accepted";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "invalid value '-1' for --zmq-zero-copy: expected a size in bytes "
                               "from 0 to 16777216 (K, M, G = 1024, 1024^2, 1024^3 bytes)");
  }
}

} // namespace
} // namespace netprof
