"""scripts/setup/install_deps.sh installs by level: what a profile needs (scripts/quickstart.sh,
the README's first command), what the tests add (scripts/test.sh), what CI's other stages add.
The first command must not pull in the test tools, a compiler for fuzzing, scipy or an ssh
server. Reads the levels with --list, which installs nothing.
"""

import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.realpath(os.environ.get("NETPROF_SOURCE_DIR", os.path.join(HERE, "..", "..")))
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "setup", "install_deps.sh")
TEST_ONLY = ("libgtest-dev", "libgmock-dev", "libbenchmark-dev", "python3-scipy",
             "python3-matplotlib", "openssh-server", "lintian")
CI_ONLY = ("clang", "libclang-rt-14-dev", "clang-format")


def declared_by_transports(level):
    """The packages transports/<name>/packages list for a level ("profile" or "test")."""
    names = []
    transports = os.path.join(SOURCE_DIR, "transports")
    for folder in sorted(os.listdir(transports)):
        path = os.path.join(transports, folder, "packages")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as declared:
                for line in declared:
                    words = line.split()
                    if words and words[0] == level + ":":
                        names += words[1:]
    return names


def packages(*level):
    result = subprocess.run([SCRIPT, *level, "--list"], capture_output=True, text=True,
                            timeout=30)
    if result.returncode != 0:
        raise AssertionError(f"install_deps.sh {' '.join(level)} --list: {result.stderr}")
    return result.stdout.split()


class LevelsTest(unittest.TestCase):
    def test_a_profile_needs_no_test_tool(self):
        profile = packages("--profile")
        self.assertTrue(declared_by_transports("profile"), "no transport declares a package")
        for package in ("g++", "cmake", *declared_by_transports("profile")):
            self.assertIn(package, profile)
        for package in declared_by_transports("test"):
            self.assertNotIn(package, profile)
        for package in TEST_ONLY + CI_ONLY:
            self.assertNotIn(package, profile)

    def test_each_level_adds_to_the_one_before(self):
        profile, tests, everything = packages("--profile"), packages("--test"), packages()
        self.assertLess(set(profile), set(tests))
        self.assertLess(set(tests), set(everything))
        for package in TEST_ONLY + tuple(declared_by_transports("test")):
            self.assertIn(package, tests)
        for package in CI_ONLY:
            self.assertNotIn(package, tests)
            self.assertIn(package, everything)

    def test_an_unknown_level_is_a_usage_error(self):
        result = subprocess.run([SCRIPT, "--everything"], capture_output=True, text=True,
                                timeout=30)
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown option '--everything'", result.stderr)


if __name__ == "__main__":
    unittest.main()
