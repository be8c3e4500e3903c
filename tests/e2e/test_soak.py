"""The short soak CI runs: scripts/tools/soak.py for a few seconds per transport, as a user runs it,
must find both sides' resident memory flat; and its verdict must fail a side that grows.

The long soak (10 minutes) is a script run, not a test: docs/benchmarks.md.
"""

import csv
import os
import sys
import tempfile
import unittest

from netprof_test_case import NETPROF, ROOT, run_script

SOAK = os.path.join(ROOT, "scripts", "tools", "soak.py")
sys.path.insert(0, os.path.join(ROOT, "scripts", "tools"))
import soak  # noqa: E402  (the verdict logic, tested without processes)

SHORT = ["--duration", "8", "--warmup", "0.5", "--interval", "0.25", "--settle", "2.5"]
DEADLINE_S = 90


class ShortSoakTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-soak-")
        self.addCleanup(self._tmp.cleanup)
        self.out = os.path.join(self._tmp.name, "out")

    def run_soak(self, transport):
        return run_script(SOAK, "--netprof", NETPROF, "--out", self.out, "--transport",
                          transport, *SHORT, deadline_s=DEADLINE_S)

    def assert_flat_run(self, transport):
        code, stdout, stderr = self.run_soak(transport)
        self.assertEqual(code, 0, stdout + stderr)
        self.assertIn("# netprof soak: PASS", stdout)
        with open(os.path.join(self.out, "rss.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        both_alive = [row for row in rows
                      if row["publisher_rss_kib"] and row["subscriber_rss_kib"]]
        # 8 s at 4 samples a second: well over 20 even when the machine is loaded.
        self.assertGreaterEqual(len(both_alive), 20)
        for row in both_alive:
            self.assertGreater(int(row["publisher_rss_kib"]), 0)
            self.assertGreater(int(row["subscriber_rss_kib"]), 0)

    def test_udp_stays_flat(self):
        self.assert_flat_run("udp")

    def test_shared_memory_stays_flat(self):
        self.assert_flat_run("shm")


class VerdictTest(unittest.TestCase):
    @staticmethod
    def samples(publisher_kib, subscriber_kib):
        return [soak.Sample(float(t), {"publisher": p, "subscriber": s})
                for t, (p, s) in enumerate(zip(publisher_kib, subscriber_kib))]

    def test_growth_beyond_the_tolerance_fails_that_side_only(self):
        leaking = [8000 + 300 * t for t in range(10)]  # 300 KiB a second
        steady = [6000] * 10
        samples = self.samples(leaking, steady)
        publisher = soak.growth_of(samples, "publisher", 2, 1024, 2.0)
        subscriber = soak.growth_of(samples, "subscriber", 2, 1024, 2.0)
        self.assertFalse(publisher.flat)
        self.assertEqual(publisher.grew_kib, 300 * 9 - 300 * 2)
        self.assertAlmostEqual(publisher.slope_kib_per_minute, 300 * 60)
        self.assertTrue(subscriber.flat)

    def test_start_up_before_settling_is_not_growth(self):
        starting = [1000, 5000, 8000, 8000, 8004, 8000]
        samples = self.samples(starting, starting)
        growth = soak.growth_of(samples, "publisher", 2, 1024, 2.0)
        self.assertTrue(growth.flat)
        self.assertEqual(growth.settled_kib, 8000)
        self.assertEqual(growth.peak_kib, 8004)

    def test_a_side_that_exited_early_has_too_few_samples(self):
        samples = self.samples([8000] * 6, [6000, 6000, None, None, None, None])
        self.assertIsNone(soak.growth_of(samples, "subscriber", 2, 1024, 2.0))


if __name__ == "__main__":
    unittest.main()
