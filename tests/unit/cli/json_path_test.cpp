// --json FILE is checked while parsing: every way the path can be unusable is one line naming it,
// before a run (or a local pair's two processes) starts, and the check leaves nothing behind.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace netprof {
namespace {

namespace fs = std::filesystem;

class JsonPathTest : public ::testing::Test {
protected:
  JsonPathTest()
  {
    register_builtin_transports(m_registry);
    m_directory = fs::path(::testing::TempDir()) /
                  ("netprof-json-path-" + std::to_string(::getpid()) + "-" +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_directory);
  }
  ~JsonPathTest() override
  {
    std::error_code ignored;
    fs::remove_all(m_directory, ignored);
  }

  // The UsageError text for a publisher given `--json path`, or a marker when it parsed.
  std::string usage_error(const std::string& path) const
  {
    const std::vector<std::string> storage{"netprof", "-u", "127.0.0.1:40000", "--json", path};
    std::vector<const char*> argv;
    for (const auto& argument : storage) {
      argv.push_back(argument.c_str());
    }
    try {
      parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(parsed without error)";
  }

  TransportRegistry m_registry;
  fs::path m_directory;
};

// Issue 30: in a folder others may write to, anyone could have planted the link, pointing at
// any file we may write; checking it must not even open what it points at.
TEST_F(JsonPathTest, RefusesALinkInAFolderOthersMayWriteTo)
{
  const fs::path target = m_directory / "target.json";
  std::ofstream(target) << "keep\n";
  const fs::path shared = m_directory / "shared";
  fs::create_directory(shared);
  ::chmod(shared.c_str(), 01777);
  const fs::path link = shared / "report.json";
  fs::create_symlink(target, link);

  EXPECT_EQ(usage_error(link.string()),
            "invalid value '" + link.string() + "' for --json: it is a symbolic link in '" +
                shared.string() +
                "', a directory others may write to, so anyone could have planted it; give a "
                "path that is not a link, or write to a directory only you can write to");
}

TEST_F(JsonPathTest, FollowsALinkInAFolderOnlyItsOwnerWrites)
{
  const fs::path target = m_directory / "target.json";
  std::ofstream(target) << "keep\n";
  ::chmod(m_directory.c_str(), 0755);
  fs::create_symlink(target, m_directory / "link.json");

  EXPECT_EQ(usage_error((m_directory / "link.json").string()), "(parsed without error)");
}

TEST_F(JsonPathTest, RefusesAnotherUsersFileEvenAsRoot)
{
  if (::geteuid() != 0)
    GTEST_SKIP() << "only root can give a file to another user";
  constexpr uid_t nobody = 65534;
  const fs::path theirs = m_directory / "report.json";
  std::ofstream(theirs) << "theirs\n";
  ASSERT_EQ(::chown(theirs.c_str(), nobody, nobody), 0);

  EXPECT_EQ(usage_error(theirs.string()),
            "invalid value '" + theirs.string() +
                "' for --json: it belongs to another user (uid 65534), and netprof never "
                "replaces another user's file; remove it or choose another name");
}

TEST_F(JsonPathTest, RefusesANameTooLongForTheSystemInOneLine)
{
  const std::string path = (m_directory / (std::string(300, 'x') + ".json")).string();

  EXPECT_EQ(usage_error(path), "invalid value '" + path + "' for --json: File name too long");
}

TEST_F(JsonPathTest, RefusesAPathWhoseDirectoryIsAFile)
{
  const fs::path file = m_directory / "plain-file";
  std::ofstream(file) << "x";
  const std::string path = (file / "r.json").string();

  EXPECT_EQ(usage_error(path),
            "invalid value '" + path + "' for --json: '" + file.string() + "' is not a directory");
}

TEST_F(JsonPathTest, RefusesADirectoryWhereNoFileCanBeCreatedEvenByRoot)
{
  // sysfs refuses new files to everyone, root included, so this holds in CI containers too.
  if (!fs::is_directory("/sys/kernel")) {
    GTEST_SKIP() << "no /sys/kernel here";
  }

  EXPECT_EQ(usage_error("/sys/kernel/r.json"),
            "invalid value '/sys/kernel/r.json' for --json: cannot write it (Permission denied)");
}

TEST_F(JsonPathTest, RefusesAFifoNobodyReadsInsteadOfHanging)
{
  const fs::path fifo = m_directory / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);

  EXPECT_EQ(usage_error(fifo.string()), "invalid value '" + fifo.string() +
                                            "' for --json: cannot write it (No such device or "
                                            "address)");
}

TEST_F(JsonPathTest, ANewFileIsCheckedWithoutLeavingOneBehind)
{
  const fs::path path = m_directory / "new.json";

  EXPECT_EQ(usage_error(path.string()), "(parsed without error)");
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(JsonPathTest, AnExistingFileIsCheckedWithoutBeingChanged)
{
  const fs::path path = m_directory / "old.json";
  std::ofstream(path) << "{\"earlier\": true}\n";

  EXPECT_EQ(usage_error(path.string()), "(parsed without error)");
  std::ifstream in(path);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "{\"earlier\": true}\n");
}

} // namespace
} // namespace netprof
