"""End-to-end: what netprof prints before any run (issue 19, part 5).

- A set-up error of --local-pair that both children would hit (a -s too large for the
  transport) was printed twice, and with a payload of 2 GB the two copies interleaved within a
  line ("netprof: netprof: -s ..."). The subscriber now starts only once the publisher got
  through its set-up, so the error is printed once, whole.
- --help split a word across lines ("/dev/shm/netprof-NAM", then "E"): descriptions now wrap
  only at spaces.
"""

import os
import unittest

from netprof_test_case import NetprofTestCase

RUNS = 5


class LocalPairStartupErrorTest(NetprofTestCase):
    def assert_printed_once(self, transport, *transport_args):
        # A few times: the second copy depended on how far the subscriber got before the
        # parent stopped it.
        for run in range(RUNS):
            with self.subTest(run=run):
                result = self.run_netprof("--local-pair", "-t", "1", "-s", "2000000000",
                                          *transport_args, deadline_s=30)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertRegex(lines[0], rf"^netprof: -s 2000000000 is too large for "
                                           rf"{transport}: at most [0-9]+ B of payload per message")

    def test_udp(self):
        self.assert_printed_once("udp")

    def test_shm(self):
        name = f"startup-{os.getpid()}"
        segment = f"/dev/shm/netprof-{name}"
        self.addCleanup(lambda: os.path.exists(segment) and os.unlink(segment))
        self.assert_printed_once("shm", "--shm", name)

    def test_a_good_pair_still_runs_both_processes(self):
        result = self.run_netprof("--local-pair", "--count", "200", "--send-hz", "2000",
                                  "--warmup-count", "20", json_name="pair")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stderr, "")
        self.assertEqual(result.json["subscribers"][0]["received"], 200)


class HelpWrappingTest(NetprofTestCase):
    def test_descriptions_break_only_at_spaces(self):
        result = self.run_netprof("--help", "all")
        self.assertEqual(result.returncode, 0)
        self.assertIn("/dev/shm/netprof-NAME,", result.stdout.split())
        # Every description's words, whole: checked against the option tables in the unit test
        # ParseCommandLineTest.HelpWrapsDescriptionsOnlyAtSpaces.
        self.assertNotIn("/dev/shm/netprof-NAM\n", result.stdout)

if __name__ == "__main__":
    unittest.main()
