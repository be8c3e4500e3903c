"""cmake/git_commit.cmake, which every build runs to name its commit in --version and the
JSON report: on a throwaway git repository, clean and changed, and on a tree without git (a
tarball), and the header left untouched when nothing changed, so a build compiles nothing
again.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "cmake", "git_commit.cmake")
CMAKE = os.environ.get("NETPROF_CMAKE", "cmake")
DEADLINE_S = 30


def run(argv, cwd=None):
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=DEADLINE_S,
                          check=True).stdout


class GitCommitTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="netprof-git-commit-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.source = os.path.join(self.dir, "source")
        self.header = os.path.join(self.dir, "netprof_git_commit.hpp")
        os.mkdir(self.source)
        with open(os.path.join(self.source, "file"), "w") as file:
            file.write("one\n")

    def make_repository(self):
        git = ["git", "-c", "user.name=test", "-c", "user.email=test@localhost"]
        run(git + ["init", "-q"], cwd=self.source)
        run(git + ["add", "file"], cwd=self.source)
        run(git + ["commit", "-q", "-m", "one"], cwd=self.source)
        return run(["git", "rev-parse", "--short=12", "HEAD"], cwd=self.source).strip()

    def commit_named(self, source=None):
        run([CMAKE, f"-DSOURCE_DIR={source or self.source}", f"-DOUTPUT={self.header}", "-P",
             SCRIPT])
        with open(self.header) as file:
            match = re.search(r'#define NETPROF_GIT_COMMIT "([^"]*)"', file.read())
        self.assertIsNotNone(match)
        return match.group(1)

    @unittest.skipUnless(shutil.which("git"), "needs git")
    def test_a_clean_tree_gives_its_commit(self):
        head = self.make_repository()
        with open(os.path.join(self.source, "untracked"), "w") as file:
            file.write("a build folder, say\n")

        self.assertEqual(self.commit_named(), head)

    @unittest.skipUnless(shutil.which("git"), "needs git")
    def test_a_changed_tracked_file_makes_it_dirty(self):
        head = self.make_repository()
        with open(os.path.join(self.source, "file"), "w") as file:
            file.write("two\n")

        self.assertEqual(self.commit_named(), head + "-dirty")

    def test_a_tree_without_git_gives_unknown(self):
        self.assertEqual(self.commit_named(), "unknown")

    @unittest.skipUnless(shutil.which("git"), "needs git")
    def test_a_tarball_unpacked_inside_another_repository_gives_unknown(self):
        self.make_repository()
        inner = os.path.join(self.source, "unpacked")
        os.mkdir(inner)

        self.assertEqual(self.commit_named(inner), "unknown")

    def test_the_header_is_not_rewritten_when_the_commit_is_the_same(self):
        self.commit_named()
        os.utime(self.header, (1_000_000_000, 1_000_000_000))

        self.commit_named()

        self.assertEqual(os.stat(self.header).st_mtime, 1_000_000_000)


if __name__ == "__main__":
    unittest.main()
