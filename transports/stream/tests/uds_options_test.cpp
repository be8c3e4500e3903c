// uds's command line and socket files: what --uds takes, and what the publisher finds, makes
// and leaves at its path.

#include "uds/uds_address.hpp"
#include "uds/uds_transport.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using testing::PlannedTransport;
using uds::parse_uds_address;

std::unique_ptr<PlannedTransport> uds_with(const std::vector<std::string>& arguments)
{
  return netprof::testing::planned(netprof::uds_transport(), arguments);
}

std::string refusal(const std::string& value)
{
  try {
    parse_uds_address(value);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

std::string open_refusal(const std::string& path)
{
  try {
    netprof::EndpointRequest request;
    uds_with({"--uds", path})->open(request);
  } catch (const TransportError& error) {
    return error.what();
  }
  return "";
}

class UdsFiles : public ::testing::Test {
protected:
  void SetUp() override
  {
    char name[] = "/tmp/netprof-uds-test-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    m_directory = name;
  }
  void TearDown() override
  {
    for (const char* leaf : {"pub.sock", "other.sock", "file"}) {
      unlink(path(leaf).c_str());
    }
    rmdir(m_directory.c_str());
  }
  std::string path(const std::string& leaf) const { return m_directory + "/" + leaf; }

  // A socket file at `where`, listening or not, left as a killed process leaves it.
  static int bind_socket(const std::string& where, bool listening)
  {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, where.data(), where.size());
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    if (listening) {
      EXPECT_EQ(listen(fd, 1), 0);
    }
    return fd;
  }

  std::string m_directory;
};

TEST(UdsAddress, APathTooLongForSunPathIsRefusedNamingTheLimit)
{
  const std::string longest = "/" + std::string(106, 'p');
  EXPECT_EQ(refusal(longest), "");
  EXPECT_EQ(refusal(longest + "p"), "bad --uds value '" + longest +
                                        "p': the path is 108 bytes, at most 107 fit in a Unix "
                                        "socket address (sun_path)");
  EXPECT_NE(refusal("@" + std::string(108, 'n')).find("the name is 108 bytes"), std::string::npos);
  EXPECT_EQ(refusal("@" + std::string(107, 'n')), "");
}

TEST(UdsAddress, ANulByteIsRefusedWhetherRealOrEscaped)
{
  EXPECT_EQ(refusal(std::string("@a\0b", 4)),
            "bad --uds value '@a\\0b': a socket name cannot contain a NUL byte");
  EXPECT_EQ(refusal("@a\\0b"), "bad --uds value '@a\\0b': netprof does not translate escapes, and "
                               "a NUL byte cannot be part of a socket name given on the command "
                               "line (drop the \\0)");
  EXPECT_NE(refusal("/tmp/a\\X00b").find("does not translate escapes"), std::string::npos);
}

TEST(UdsAddress, EmptyValuesAreRefused)
{
  EXPECT_EQ(refusal(""), "bad --uds value '': expected a socket file's path or @name");
  EXPECT_EQ(refusal("@"), "bad --uds value '@': an abstract name needs characters after the @");
}

TEST(UdsAddress, AnAbstractNameStartsWithAZeroByteAndHasNoFile)
{
  const netprof::uds::UdsAddress parsed = parse_uds_address("@netprof");
  EXPECT_TRUE(parsed.abstract);
  EXPECT_TRUE(parsed.path.empty());
  EXPECT_EQ(parsed.address.sun_path[0], '\0');
  EXPECT_EQ(std::string(parsed.address.sun_path + 1, 7), "netprof");
  EXPECT_EQ(parsed.length, offsetof(sockaddr_un, sun_path) + 8);
}

TEST(UdsOptions, EveryRoleNeedsThePlaceAndTheTypeIsOneOfTwo)
{
  EXPECT_THROW(uds_with({"--uds-type", "stream"})->plan_for(Role::subscriber), UsageError);
  EXPECT_THROW(uds_with({"--uds", "/tmp/x", "--uds-type", "dgram"})->plan_for(Role::publisher),
               UsageError);
  EXPECT_NO_THROW(uds_with({"--uds", "@x", "--uds-type", "stream"})->plan_for(Role::publisher));
}

TEST(UdsOptions, TheLocalPairPicksAFreshFileAndListsItForCleanUp)
{
  const netprof::LocalPairPlan picked = uds_with({})->pair_plan(2);
  ASSERT_EQ(picked.publisher.size(), 2u);
  EXPECT_NE(picked.publisher[1].find("netprof-uds-"), std::string::npos);
  EXPECT_EQ(picked.subscribers.at(1), picked.publisher);
  EXPECT_EQ(picked.files, std::vector<std::string>{picked.publisher[1]});
  EXPECT_TRUE(uds_with({"--uds", "@name"})->pair_plan(1).files.empty());
}

TEST_F(UdsFiles, TheSocketFileIs0600UnderAnyUmaskAndRemovedAtTheEnd)
{
  const mode_t previous = umask(0);
  {
    const auto publisher = uds_with({"--uds", path("pub.sock")})->open({});
    umask(previous);
    struct stat status {};
    ASSERT_EQ(lstat(path("pub.sock").c_str(), &status), 0);
    EXPECT_TRUE(S_ISSOCK(status.st_mode));
    EXPECT_EQ(status.st_mode & 0777, 0600u);
  }
  umask(previous);
  EXPECT_NE(access(path("pub.sock").c_str(), F_OK), 0) << "the socket file was left behind";
}

TEST_F(UdsFiles, AStaleSocketFileIsReplacedAndNoted)
{
  close(bind_socket(path("pub.sock"), false));
  const auto publisher = uds_with({"--uds", path("pub.sock")})->open({});
  const std::vector<std::string> notes = publisher->facts().notes;
  EXPECT_EQ(notes.front(), "removed a stale socket file at " + path("pub.sock") +
                               " (left by an earlier run: nobody was listening on it)");
}

TEST_F(UdsFiles, ALiveSocketIsRefusedAndLeftAlone)
{
  const int live = bind_socket(path("pub.sock"), true);
  EXPECT_EQ(open_refusal(path("pub.sock")),
            "cannot bind uds " + path("pub.sock") +
                ": address in use (another process is listening on it)");
  EXPECT_EQ(access(path("pub.sock").c_str(), F_OK), 0);
  close(live);
}

TEST_F(UdsFiles, AnythingButASocketIsNeverReplaced)
{
  std::ofstream(path("file")) << "precious";
  EXPECT_EQ(open_refusal(path("file")),
            "cannot bind uds " + path("file") +
                ": the path exists and is not a socket (netprof never replaces it)");
  std::ifstream kept(path("file"));
  std::string content;
  kept >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(UdsFiles, AnotherUsersSocketFileIsRefusedEvenByRoot)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to give the file to another user";
  }
  close(bind_socket(path("other.sock"), false));
  ASSERT_EQ(chown(path("other.sock").c_str(), 65534, 65534), 0);
  EXPECT_EQ(open_refusal(path("other.sock")),
            "cannot bind uds " + path("other.sock") +
                ": the socket file there belongs to uid 65534, not to this user (netprof never "
                "replaces another user's file)");
  EXPECT_EQ(access(path("other.sock").c_str(), F_OK), 0);
}

TEST_F(UdsFiles, AMissingDirectoryIsATransportErrorWithAHint)
{
  EXPECT_EQ(open_refusal(path("none/pub.sock")),
            "cannot bind uds " + path("none/pub.sock") +
                ": No such file or directory (is the directory there and writable?)");
}

TEST_F(UdsFiles, ASubscriberOfTheOtherTypeIsToldSo)
{
  const auto publisher = uds_with({"--uds", path("pub.sock"), "--uds-type", "seqpacket"})->open({});
  netprof::EndpointRequest request;
  request.role = Role::subscriber;
  const auto subscriber =
      uds_with({"--uds", path("pub.sock"), "--uds-type", "stream"})->open(request);
  const std::vector<std::string> said = subscriber->facts().diagnoses;
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("the publisher uses the other --uds-type"), std::string::npos) << said[0];
}

TEST(UdsAbstract, AnAbstractNameCarriesMessagesAndSaysAnyoneMayConnect)
{
  const std::string name = "@netprof-test-" + std::to_string(getpid());
  const auto publisher = uds_with({"--uds", name})->open({});
  netprof::EndpointRequest request;
  request.role = Role::subscriber;
  const auto subscriber = uds_with({"--uds", name})->open(request);
  const std::byte hello[] = {std::byte{1}, std::byte{2}};
  ASSERT_EQ(subscriber->send(hello).result, netprof::SendResult::sent);
  netprof::testing::CollectingSink sink;
  const auto deadline = netprof::Clock::now() + 5s;
  while (sink.messages.empty() && netprof::Clock::now() < deadline) {
    publisher->receive(sink, 10ms);
  }
  EXPECT_EQ(sink.messages.size(), 1u);
  bool noted = false;
  for (const std::string& note : publisher->facts().notes) {
    noted = noted || note.find("no file and so no permissions") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

} // namespace
} // namespace netprof
