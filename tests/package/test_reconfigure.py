"""Configuring again changes nothing a build depends on: scripts/quickstart.sh configures
without the tests and benchmarks, scripts/test.sh configures the same folder again with them,
and neither may change the flags of an object already built (each flags.make is what make
compares to decide a recompile). libzmq.pc's "-isystem /usr/include/mit-krb5" once moved from
CXX_INCLUDES to CXX_FLAGS on the second configure, and the second command recompiled 82
objects the first had just built. Configures only (no compiling) into a temporary folder.
"""

import glob
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.realpath(os.environ.get("NETPROF_SOURCE_DIR", os.path.join(HERE, "..", "..")))
CMAKE = os.environ.get("NETPROF_CMAKE", "cmake")
DEADLINE_S = 120
WITHOUT_TESTS = ("-DNETPROF_BUILD_TESTS=OFF", "-DNETPROF_BUILD_BENCH=OFF")
WITH_TESTS = ("-DNETPROF_BUILD_TESTS=ON", "-DNETPROF_BUILD_BENCH=ON")


class ReconfigureTest(unittest.TestCase):
    def setUp(self):
        self.build = tempfile.mkdtemp(prefix="netprof-reconfigure-")
        self.addCleanup(shutil.rmtree, self.build, True)

    def configure(self, *options):
        """Configures the build folder; {flags.make path: its content}."""
        result = subprocess.run([CMAKE, "-S", SOURCE_DIR, "-B", self.build,
                                 "-DCMAKE_BUILD_TYPE=Release", *options],
                                capture_output=True, text=True, timeout=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        flags = {}
        for path in glob.glob(os.path.join(self.build, "**", "flags.make"), recursive=True):
            with open(path) as f:
                flags[os.path.relpath(path, self.build)] = f.read()
        self.assertTrue(flags, "no flags.make written")
        return flags

    def assert_same_flags(self, before, after, step):
        for path in sorted(before.keys() & after.keys()):
            self.assertEqual(before[path], after[path], f"{step} changed {path}")

    def test_quickstart_then_test_configures_leave_every_flag_as_it_was(self):
        first = self.configure(*WITHOUT_TESTS)
        self.assertIn("transports/zmq/CMakeFiles/netprof_transport_zmq.dir/flags.make", first)
        self.assert_same_flags(first, self.configure(*WITHOUT_TESTS), "a second configure")
        with_tests = self.configure(*WITH_TESTS)
        self.assertGreater(len(with_tests), len(first), "the tests' targets were not added")
        self.assert_same_flags(first, with_tests, "turning the tests and benchmarks on")
        self.assert_same_flags(with_tests, self.configure(*WITH_TESTS), "configuring again")


if __name__ == "__main__":
    unittest.main()
