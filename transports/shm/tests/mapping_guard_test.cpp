// A file truncated under a guarded mapping: the access that faults completes against zeros and
// the guard says the mapping is lost; a fault anywhere else still kills, as it should. Each
// case runs in a child process (a death test), so a guard that fails kills only the child.

#include "mapping_guard.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

using netprof::shm::MappingGuard;

constexpr std::size_t size = 64 * 1024;

// A file in /dev/shm of `size` bytes filled with 1s, unlinked at once (the mapping keeps it),
// mapped shared.
struct SharedFile {
  int fd = -1;
  volatile unsigned char* bytes = nullptr;

  SharedFile()
  {
    const std::string name = "/netprof-guard-test-" + std::to_string(getpid());
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    shm_unlink(name.c_str());
    if (fd < 0 || ftruncate(fd, size) != 0)
      std::abort();
    void* mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED)
      std::abort();
    bytes = static_cast<volatile unsigned char*>(mapped);
    for (std::size_t i = 0; i < size; i += 4096)
      bytes[i] = 1;
  }
  void truncate() const
  {
    if (ftruncate(fd, 0) != 0)
      std::abort();
  }
  void* base() const { return const_cast<unsigned char*>(bytes); }
};

// Killed by the SIGBUS, or, in a sanitized build whose runtime handled SIGBUS before the guard
// was installed, ended by that runtime's report: either way the process does not go on.
bool died_of_sigbus(int status)
{
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
         (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

TEST(MappingGuardDeathTest, ATruncatedMappingReadsZerosAndIsMarkedLost)
{
  EXPECT_EXIT(
      {
        SharedFile file;
        MappingGuard sut(file.base(), size);
        const bool lost_before = sut.lost();
        file.truncate();
        const unsigned char read = file.bytes[size / 2];
        file.bytes[size - 1] = 7; // writing is survived too
        std::_Exit(!lost_before && sut.lost() && read == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Runs `fault` in a child process, which must die of SIGBUS; one that survives exits 0.
template <typename Fault> void expect_death_by_sigbus(Fault fault)
{
  EXPECT_EXIT(
      {
        fault();
        std::_Exit(0);
      },
      died_of_sigbus, "");
}

TEST(MappingGuardDeathTest, AFaultOutsideEveryGuardedMappingStillKills)
{
  expect_death_by_sigbus([] {
    SharedFile guarded;
    MappingGuard guard(guarded.base(), size); // installs the handler
    SharedFile other;
    other.truncate();
    (void)other.bytes[0];
  });
}

TEST(MappingGuardDeathTest, AReleasedGuardNoLongerAbsorbsTheFault)
{
  expect_death_by_sigbus([] {
    SharedFile file;
    MappingGuard guard(file.base(), size);
    guard.release();
    file.truncate();
    (void)file.bytes[0];
  });
}

TEST(MappingGuardDeathTest, ASigbusSentByAnotherProcessIsNotTakenForAFault)
{
  expect_death_by_sigbus([] {
    SharedFile file;
    MappingGuard guard(file.base(), size);
    kill(getpid(), SIGBUS);
  });
}

TEST(MappingGuard, AMovedGuardKeepsGuardingAndAnUnusedOneSaysNothingIsLost)
{
  SharedFile file;
  MappingGuard first(file.base(), size);
  MappingGuard second(std::move(first));
  EXPECT_FALSE(first.lost()); // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_FALSE(second.lost());
  EXPECT_FALSE(MappingGuard().lost());
  munmap(file.base(), size);
  close(file.fd);
}

} // namespace
