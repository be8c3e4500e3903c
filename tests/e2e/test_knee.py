"""End-to-end: scripts/tools/knee.py over UDP loopback with tiny bounds (two or three runs of
0.3 s per search), as a user runs it: by path, under a deadline, in a temporary folder.
"""

import csv
import os
import tempfile
import unittest

from netprof_test_case import NETPROF, ROOT, run_script

KNEE = os.path.join(ROOT, "scripts", "tools", "knee.py")
DEADLINE_S = 90
TINY = ["--transports", "udp", "--sizes", "64", "-t", "0.3", "--warmup", "0.1",
        "--start-hz", "500", "--repetitions", "1"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class KneeTest(unittest.TestCase):
    def knee(self, *args):
        """Runs knee.py into a fresh folder, self.out, removed after the test."""
        folder = tempfile.TemporaryDirectory(prefix="netprof-knee-")
        self.addCleanup(folder.cleanup)
        self.out = os.path.join(folder.name, "out")
        return run_script(KNEE, "--netprof", NETPROF, "--out", self.out, *args,
                          deadline_s=DEADLINE_S)

    def test_a_rate_up_to_max_hz_that_passes_is_the_knee_with_every_file_written(self):
        # A p99 of up to a second and 10% loss pass on any machine: both rates pass.
        returncode, stdout, stderr = self.knee(*TINY, "--max-hz", "1000", "--p99-max", "1e6",
                                               "--max-loss", "10")
        self.assertEqual(returncode, 0, stderr)
        [row] = read_csv(os.path.join(self.out, "knee.csv"))
        self.assertEqual((row["transport"], row["payload_size"], row["knee_hz"],
                          row["stopped_by"], row["converged"], row["probes"]),
                         ("udp", "64", "1000.0", "max-hz", "True", "2"))
        probes = read_csv(os.path.join(self.out, "probes.csv"))
        self.assertEqual([(p["send_hz"], p["passed"]) for p in probes],
                         [("500.0", "True"), ("1000.0", "True")])
        self.assertIn("| udp | 64 B | ≥ 1,000 |", stdout)
        for name in ("knee.md", "knee.png"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, name)), name)

    def test_a_search_cut_short_by_max_probes_says_so_and_exits_1(self):
        # One rate, run three times by default; it passes, but the search could go higher.
        returncode, stdout, stderr = self.knee(*TINY[:-2], "--p99-max", "1e6", "--max-loss", "10",
                                               "--max-probes", "1")
        self.assertEqual(returncode, 1, stderr)
        [row] = read_csv(os.path.join(self.out, "knee.csv"))
        self.assertEqual((row["knee_hz"], row["stopped_by"], row["converged"],
                          row["runs_per_rate"]), ("500.0", "max-probes", "False", "3"))
        probes = read_csv(os.path.join(self.out, "probes.csv"))
        self.assertEqual([(p["send_hz"], p["repetition"]) for p in probes],
                         [("500.0", "1"), ("500.0", "2"), ("500.0", "3")])
        p99s = sorted(float(p["one_way_p99_ns"]) for p in probes)
        self.assertEqual(float(row["knee_one_way_p99_ns"]), p99s[1])  # the median
        self.assertIn("≥ 500 (not converged)", stdout)
        self.assertIn("**Not converged**", stdout)
        self.assertIn("knee: udp 64 B did not converge: stopped at --max-probes 1", stderr)

    def test_a_target_no_run_meets_has_no_knee(self):
        returncode, stdout, stderr = self.knee(*TINY, "--min-hz", "500", "--p99-max", "0.001")
        self.assertEqual(returncode, 0, stderr)
        [row] = read_csv(os.path.join(self.out, "knee.csv"))
        self.assertEqual((row["knee_hz"], row["failing_hz"], row["stopped_by"]),
                         ("", "500.0", "min-hz"))
        self.assertIn("p99", row["failing_because"])
        self.assertIn("none (fails at 500)", stdout)

    def test_netprof_refusing_the_run_exits_3_naming_why(self):
        returncode, _, stderr = self.knee(*TINY[:2], "--sizes", "4096", "--p99-max", "1000",
                                          "--netprof-args", "--udp-max-message 2000")
        self.assertEqual(returncode, 3, stderr)
        self.assertIn("knee: netprof failed, not by the criterion: udp 4 KiB at 1000 msg/s: "
                      "publisher exited 2", stderr)

    def test_bad_arguments_exit_2(self):
        for args in (["--p99-max", "-5"], ["--p99-max", "100", "--min-hz", "5000",
                                            "--max-hz", "100"], ["--p99-max", "100", "--sizes",
                                                                 "0"]):
            with self.subTest(args=args):
                returncode, _, stderr = self.knee(*args)
                self.assertEqual(returncode, 2)
                self.assertRegex(stderr, r"^knee: ")


if __name__ == "__main__":
    unittest.main()
