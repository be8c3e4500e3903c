"""End-to-end: scripts/tools/compare.py as CI would run it, on publishers' JSON reports and a sweep
CSV written here (synthetic figures, so the verdicts are known). No netprof process runs.
"""

import csv
import json
import os
import tempfile
import unittest

from netprof_test_case import ROOT, run_script

COMPARE = os.path.join(ROOT, "scripts", "tools", "compare.py")


def report(p50_ns, messages_per_second=100_000.0, transport="udp", payload_size=128):
    """A publisher's report, schema version 1, with the figures compare.py reads."""
    latency = {"count": 1000, "min": p50_ns / 2, "p50": p50_ns, "p90": p50_ns * 1.5,
               "p99": p50_ns * 2, "max": p50_ns * 5, "mean": p50_ns * 1.1}
    return {
        "schema_version": 1,
        "settings": {"role": "publisher", "transport": transport, "mode": "stream",
                     "payload_size": payload_size, "subscribers_expected": 1},
        "result": {"status": "SUCCESS", "success": True, "interrupted": False},
        "publisher": {"latency": {"one_way_ns": latency, "rtt_ns": latency}},
        "subscribers": [{"id": 1, "counters_received": True, "lost": 0, "loss_percent": 0.0,
                         "throughput": {"messages_per_second": messages_per_second,
                                        "payload_bytes_per_second": messages_per_second * 128,
                                        "wire_bytes_per_second": messages_per_second * 180}}]}


class CompareTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-compare-")
        self.addCleanup(self._tmp.cleanup)

    def reports(self, name, p50s, **figures):
        paths = []
        for index, p50 in enumerate(p50s):
            paths.append(os.path.join(self._tmp.name, f"{name}-{index}.pub.json"))
            with open(paths[-1], "w") as f:
                json.dump(report(p50, **figures), f)
        return paths

    def compare(self, baseline, contender, *args):
        return run_script(COMPARE, "--baseline", *baseline, "--contender", *contender, *args)

    def test_a_clear_latency_regression_exits_1_and_names_it(self):
        returncode, stdout, stderr = self.compare(
            self.reports("base", [10_000, 10_100, 9_900, 10_050, 9_950]),
            self.reports("new", [15_000, 15_100, 14_900, 15_050, 14_950]))
        self.assertEqual(returncode, 1, stderr)
        # One-sided toward a regression: 1 / C(10, 5), half the two-sided 0.0079.
        self.assertRegex(stdout, r"latency p50, µs +10.0 +15.0 +\+50.0% +0.00397 +5/5 +worse")
        self.assertIn("received, msg/s", stdout)
        self.assertIn("significant regression: udp stream 128 B, 1 subscriber: latency p50",
                      stderr)

    def test_noise_and_an_improvement_exit_0_from_sweep_csvs(self):
        # Per size: 64 B the same, 1 KiB twice as fast.
        baseline = self.sweep_csv("base", {64: (1.0, 5), 1024: (1.0, 5)})
        contender = self.sweep_csv("new", {64: (1.0, 5), 1024: (0.5, 5)})
        returncode, stdout, stderr = self.compare([baseline], [contender], "--json", "-")
        self.assertEqual(returncode, 0, stderr)
        document = json.loads(stdout)
        self.assertFalse(document["regression"])
        self.assertEqual(document["too_few_runs"], 0)
        verdicts = {r["runs"]: r["verdict"] for r in document["figures"]}
        self.assertEqual(verdicts, {"udp stream 64 B, 1 subscriber": "noise",
                                    "udp stream 1 KiB, 1 subscriber": "better"})

    def test_too_few_runs_fail_the_gate_with_exit_3(self):
        # 4 KiB twice as slow, but in 2 runs only: not judged, so not passed.
        baseline = self.sweep_csv("base", {64: (1.0, 5), 4096: (1.0, 2)})
        contender = self.sweep_csv("new", {64: (1.0, 5), 4096: (2.0, 2)})
        returncode, stdout, stderr = self.compare([baseline], [contender], "--json", "-")
        self.assertEqual(returncode, 3, stderr)
        document = json.loads(stdout)
        self.assertEqual((document["regression"], document["too_few_runs"]), (False, 1))
        self.assertIn("1 of 2 figures had too few runs to judge at alpha 0.05 (at least 4 per "
                      "side): not judged, so the gate fails", stderr)

    def test_three_runs_per_side_of_a_clear_regression_do_not_pass(self):
        # Issue 29's case: p99 +35% and msg/s -36% on 3 runs a side printed "too few runs" and
        # exited 0. 3 against 3 cannot reach p < 0.05 even one-sided (1/20): exit 3.
        base = self.reports("base", [10_000, 10_100, 9_900], messages_per_second=100_000.0)
        new = self.reports("new", [13_500, 13_600, 13_400], messages_per_second=64_000.0)
        returncode, _, stderr = self.compare(base, new)
        self.assertEqual(returncode, 3, stderr)
        self.assertIn("the gate fails", stderr)
        # One run more a side is enough for the default test to find it.
        base += self.reports("base4", [10_050], messages_per_second=100_500.0)
        new += self.reports("new4", [13_550], messages_per_second=64_500.0)
        returncode, stdout, stderr = self.compare(base, new)
        self.assertEqual(returncode, 1, stdout + stderr)
        self.assertRegex(stdout, r"latency p99, µs .* 4/4 +worse")
        self.assertRegex(stdout, r"received, msg/s .* 4/4 +worse")

    def test_help_names_the_one_sided_test_and_the_exit_statuses(self):
        returncode, stdout, _ = run_script(COMPARE, "--help")
        self.assertEqual(returncode, 0)
        text = " ".join(stdout.split())
        self.assertIn("one-sided", text)
        self.assertIn("4 at alpha 0.05", text)
        self.assertIn("3 no regression found but some figure had too few runs", text)

    def sweep_csv(self, name, points):
        """A sweep CSV: {size: (latency factor, runs)}, the p50 about 10 µs times the factor,
        and a failed row per size that must not count."""
        path = os.path.join(self._tmp.name, name + ".csv")
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["transport", "mode", "payload_size", "subscribers", "status",
                             "one_way_p50_ns"])
            for size, (factor, runs) in points.items():
                for repetition in range(runs):
                    p50 = (10_000 + 10 * repetition * (-1) ** repetition) * factor
                    writer.writerow(["udp", "stream", size, 1, "ok", p50])
                writer.writerow(["udp", "stream", size, 1, "failed", ""])
        return path

    def test_bad_input_exits_2_with_one_line(self):
        not_a_report = os.path.join(self._tmp.name, "notes.txt")
        with open(not_a_report, "w") as f:
            f.write("hello\n")
        good = self.reports("base", [10_000])
        for baseline in ([not_a_report], [os.path.join(self._tmp.name, "missing.json")]):
            with self.subTest(baseline=baseline):
                returncode, _, stderr = self.compare(baseline, good)
                self.assertEqual(returncode, 2)
                self.assertRegex(stderr, r"^compare: --baseline: ")


if __name__ == "__main__":
    unittest.main()
