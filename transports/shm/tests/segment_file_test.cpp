// Whose file under a segment's name is used, and what the user is told about the rest: the
// owner and file-type checks as pure logic over a struct stat, --shm-allow-user's values, and
// open_segment_file on real files in /dev/shm (a FIFO must be refused, never waited on).

#include "segment_file.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

using netprof::shm::OwnerPolicy;
using netprof::shm::SegmentFile;

constexpr uid_t nobody = 65534;
const std::string path = "/dev/shm/netprof-X";

struct stat file_of(mode_t type, uid_t owner, mode_t permissions = 0600)
{
  struct stat info {};
  info.st_mode = type | permissions;
  info.st_uid = owner;
  return info;
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

TEST(OwnerPolicy, TrustsItsOwnUserAndOnlyTheOneNamedBesides)
{
  const OwnerPolicy own{1000, std::nullopt};
  EXPECT_TRUE(own.trusts(1000));
  EXPECT_FALSE(own.trusts(nobody));
  EXPECT_FALSE(own.trusts(0));
  const OwnerPolicy allowing{1000, nobody};
  EXPECT_TRUE(allowing.trusts(nobody));
  EXPECT_FALSE(allowing.trusts(0));
}

TEST(OwnerPolicy, RootIsNotSpecial)
{
  EXPECT_FALSE((OwnerPolicy{0, std::nullopt}.trusts(nobody)));
}

TEST(OwnerPolicy, DefaultsToThisProcesssEffectiveUser)
{
  EXPECT_EQ(OwnerPolicy{}.self, geteuid());
  EXPECT_FALSE(OwnerPolicy{}.also_trusted.has_value());
}

TEST(SegmentFileRefusal, OwnRegularFileIsUsed)
{
  EXPECT_EQ(netprof::shm::refusal_for(file_of(S_IFREG, 1000), path, {1000, std::nullopt}),
            std::nullopt);
}

TEST(SegmentFileRefusal, AnotherUsersFileIsRefusedNamingTheOwnerAndTheWayToAllowIt)
{
  const auto why = netprof::shm::refusal_for(file_of(S_IFREG, nobody), path, {0, std::nullopt});
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(contains(*why, path + " belongs to another user")) << *why;
  EXPECT_TRUE(contains(*why, "uid 65534")) << *why;
  EXPECT_TRUE(contains(*why, "--shm-allow-user ")) << *why;
}

TEST(SegmentFileRefusal, AnotherUsersFileIsUsedWhenThatUserIsAllowed)
{
  EXPECT_EQ(netprof::shm::refusal_for(file_of(S_IFREG, nobody), path, {0, nobody}), std::nullopt);
}

TEST(SegmentFileRefusal, EveryKindOfFileButARegularOneIsRefusedByName)
{
  const std::pair<mode_t, const char*> kinds[] = {
      {S_IFIFO, "a FIFO"},    {S_IFLNK, "a symbolic link"},    {S_IFDIR, "a directory"},
      {S_IFSOCK, "a socket"}, {S_IFCHR, "a character device"}, {S_IFBLK, "a block device"}};
  for (const auto& [type, name] : kinds) {
    // Even our own: no such thing is a segment.
    const auto why = netprof::shm::refusal_for(file_of(type, 1000), path, {1000, std::nullopt});
    ASSERT_TRUE(why.has_value()) << name;
    EXPECT_TRUE(contains(*why, path + " is " + name + " owned by ")) << *why;
    EXPECT_TRUE(contains(*why, "not a shared-memory segment")) << *why;
  }
}

TEST(SegmentFileRefusal, PermissionDeniedNamesTheOwnerAndTheMode)
{
  const struct stat info = file_of(S_IFREG, nobody, 0600);
  const std::string line = netprof::shm::permission_refusal(path, &info);
  EXPECT_TRUE(contains(line, "permission denied opening " + path)) << line;
  EXPECT_TRUE(contains(line, "uid 65534")) << line;
  EXPECT_TRUE(contains(line, "mode 0600")) << line;
  EXPECT_EQ(netprof::shm::permission_refusal(path, nullptr), "permission denied opening " + path);
}

TEST(UserLabel, NamesAKnownUserAndFallsBackToTheUid)
{
  EXPECT_EQ(netprof::shm::user_label(0), "root (uid 0)");
  EXPECT_EQ(netprof::shm::user_label(4000000000u), "uid 4000000000");
}

TEST(TrustedUser, TakesANameOrAUid)
{
  EXPECT_EQ(netprof::shm::parse_trusted_user("root"), 0u);
  EXPECT_EQ(netprof::shm::parse_trusted_user("0"), 0u);
  EXPECT_EQ(netprof::shm::parse_trusted_user("65534"), nobody);
  EXPECT_EQ(netprof::shm::parse_trusted_user("4000000000"), 4000000000u) << "need not exist";
  if (const passwd* entry = getpwuid(nobody)) {
    EXPECT_EQ(netprof::shm::parse_trusted_user(entry->pw_name), nobody);
  }
}

TEST(TrustedUser, RefusesAnUnknownNameAnEmptyValueAndAUidOutOfRange)
{
  for (const char* bad : {"no-such-user-netprof", "", "4294967295", "99999999999", "-1", "1e3"})
    EXPECT_THROW(netprof::shm::parse_trusted_user(bad), netprof::UsageError) << bad;
  try {
    netprof::shm::parse_trusted_user("no-such-user-netprof");
  } catch (const netprof::UsageError& error) {
    EXPECT_STREQ(error.what(), "bad --shm-allow-user value 'no-such-user-netprof': no user has "
                               "that name (give a user name or a numeric uid)");
  }
}

// Real files under /dev/shm, each test with its own name, removed at the end.
class OpenSegmentFile : public ::testing::Test {
protected:
  void SetUp() override
  {
    static int counter = 0;
    file =
        "/dev/shm/netprof-file-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  }
  void TearDown() override
  {
    if (unlink(file.c_str()) != 0)
      rmdir(file.c_str());
  }

  SegmentFile open_it(int access = O_RDONLY, OwnerPolicy policy = {})
  {
    return netprof::shm::open_segment_file(file, access, policy);
  }

  // Refused, for reading and for writing, as `kind` ("a FIFO").
  void expect_refused_as(const std::string& kind)
  {
    for (const int access : {O_RDONLY, O_RDWR}) {
      const SegmentFile sut = open_it(access);
      EXPECT_EQ(sut.status, SegmentFile::Status::refused);
      EXPECT_TRUE(contains(sut.refusal, file + " is " + kind)) << sut.refusal;
    }
  }

  std::string file;
};

TEST_F(OpenSegmentFile, NothingThereIsAbsent)
{
  EXPECT_EQ(open_it().status, SegmentFile::Status::absent);
}

TEST_F(OpenSegmentFile, OwnRegularFileOpensWithItsStat)
{
  const int fd = open(file.c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  close(fd);
  const SegmentFile sut = open_it(O_RDWR);
  ASSERT_EQ(sut.status, SegmentFile::Status::opened) << sut.refusal;
  EXPECT_EQ(sut.info.st_size, 4096);
  EXPECT_NE(fcntl(sut.fd, F_GETFD) & FD_CLOEXEC, 0);
  close(sut.fd);
}

// Opened for reading, a FIFO blocks until someone writes; this must come back at once.
TEST_F(OpenSegmentFile, AFifoIsRefusedNotWaitedOn)
{
  ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
  expect_refused_as("a FIFO");
}

TEST_F(OpenSegmentFile, ASymbolicLinkIsRefusedNotFollowed)
{
  ASSERT_EQ(symlink("/etc/hostname", file.c_str()), 0);
  expect_refused_as("a symbolic link");
}

TEST_F(OpenSegmentFile, ADirectoryIsRefusedForReadingAndWriting)
{
  ASSERT_EQ(mkdir(file.c_str(), 0700), 0);
  expect_refused_as("a directory");
}

TEST_F(OpenSegmentFile, ASocketIsRefused)
{
  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", file.c_str());
  ASSERT_EQ(bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  close(listener);
  expect_refused_as("a socket");
}

TEST_F(OpenSegmentFile, AnotherUsersFileIsRefusedUnlessAllowed)
{
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root, to give the file to uid 65534";
  const int fd = open(file.c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchown(fd, nobody, nobody), 0);
  close(fd);
  const SegmentFile refused = open_it(O_RDWR);
  EXPECT_EQ(refused.status, SegmentFile::Status::refused);
  EXPECT_TRUE(contains(refused.refusal, "belongs to another user")) << refused.refusal;
  const SegmentFile allowed = open_it(O_RDWR, {geteuid(), nobody});
  ASSERT_EQ(allowed.status, SegmentFile::Status::opened) << allowed.refusal;
  close(allowed.fd);
}

} // namespace
