// replace_file: the --json report replaces the old one whole, or leaves it alone. A full disk,
// which needs root to stage, is in tests/e2e/test_honest_figures.py.

#include "core/process/file_replacement.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using netprof::replace_file;

class ReplaceFile : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::temp_directory_path() / "netprof-replace-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_directory = pattern;
  }
  void TearDown() override { fs::remove_all(m_directory); }

  std::string path(const std::string& name) const { return (m_directory / name).string(); }

  static void write(const std::string& file, const std::string& text)
  {
    std::ofstream(file) << text;
  }

  static std::string read(const std::string& file)
  {
    std::ostringstream text;
    text << std::ifstream(file).rdbuf();
    return text.str();
  }

  static mode_t mode_of(const std::string& file)
  {
    struct stat status {};
    EXPECT_EQ(::lstat(file.c_str(), &status), 0);
    return status.st_mode & 07777;
  }

  std::vector<std::string> names() const
  {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(m_directory))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }

  fs::path m_directory;
};

TEST_F(ReplaceFile, ReplacesAnExistingFileKeepingItsModeAndLeavesNoTemporaryBehind)
{
  const std::string sut = path("report.json");
  write(sut, "old and longer than the new contents\n");
  ::chmod(sut.c_str(), 0640);

  replace_file(sut, "new\n");

  EXPECT_EQ(read(sut), "new\n");
  EXPECT_EQ(mode_of(sut), 0640u);
  EXPECT_EQ(names(), std::vector<std::string>{"report.json"});
}

TEST_F(ReplaceFile, ANewFileGetsTheModeTheUmaskGivesAnyFile)
{
  const mode_t previous = ::umask(027);
  replace_file(path("report.json"), "new\n");
  ::umask(previous);

  EXPECT_EQ(read(path("report.json")), "new\n");
  EXPECT_EQ(mode_of(path("report.json")), 0640u);
}

TEST_F(ReplaceFile, ARelativeNameIsReplacedInTheWorkingDirectory)
{
  const fs::path previous = fs::current_path();
  fs::current_path(m_directory);
  write("report.json", "old\n");
  replace_file("report.json", "new\n");
  fs::current_path(previous);

  EXPECT_EQ(read(path("report.json")), "new\n");
  EXPECT_EQ(names(), std::vector<std::string>{"report.json"});
}

TEST_F(ReplaceFile, ASymbolicLinkIsWrittenThroughAndStaysALink)
{
  // It may be /dev/stdout, which must never be replaced by a file.
  write(path("target.json"), "old\n");
  fs::create_symlink(path("target.json"), path("link.json"));

  replace_file(path("link.json"), "new\n");

  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read(path("target.json")), "new\n");
}

TEST_F(ReplaceFile, ADeviceIsWrittenInPlace)
{
  EXPECT_NO_THROW(replace_file("/dev/null", "new\n"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(ReplaceFile, AFailureSaysWhatFailedAndLeavesNothingBehind)
{
  const std::string missing = path("no-such-directory/report.json");
  try {
    replace_file(missing, "new\n");
    FAIL() << "no error";
  } catch (const netprof::TransportError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot create a temporary file in '" + path("") +
                                             "no-such-directory': No such file or directory; "
                                             "no file was written");
  }
  EXPECT_EQ(names(), std::vector<std::string>{});
}

TEST_F(ReplaceFile, AsRootAnotherUsersFileIsRefusedAndLeftAlone)
{
  if (::geteuid() != 0)
    GTEST_SKIP() << "only root can give a file to another user";
  constexpr uid_t nobody = 65534;
  const std::string sut = path("report.json");
  write(sut, "theirs\n");
  ASSERT_EQ(::chown(sut.c_str(), nobody, nobody), 0);

  EXPECT_THROW(replace_file(sut, "new\n"), netprof::TransportError);

  EXPECT_EQ(read(sut), "theirs\n");
  EXPECT_EQ(names(), std::vector<std::string>{"report.json"});
}

// A link planted after the command line was checked (a run is long enough) is refused too.
TEST_F(ReplaceFile, ALinkInADirectoryOthersMayWriteToIsRefusedNotFollowed)
{
  write(path("target.json"), "keep\n");
  ::chmod(m_directory.c_str(), 01777);
  fs::create_symlink(path("target.json"), path("link.json"));

  try {
    replace_file(path("link.json"), "new\n");
    FAIL() << "no error";
  } catch (const netprof::TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("is a symbolic link in"), std::string::npos);
  }
  EXPECT_EQ(read(path("target.json")), "keep\n");
  EXPECT_EQ(names(), (std::vector<std::string>{"link.json", "target.json"}));
}

} // namespace
