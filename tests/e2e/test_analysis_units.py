"""Unit tests of the analysis scripts' logic, no netprof run: the knee search's bisection and
criterion (scripts/tools/knee.py), the statistics of scripts/tools/compare.py, the lines of
scripts/tools/plot.py, the defaults of scripts/tools/sweep.py and the launcher's CSV rows
(scripts/lib/netprof_merge.py), and which role a callgrind output counted
(scripts/bench/instructions_per_message.py). Milliseconds each.
"""

import contextlib
import importlib.util
import io
import math
import os
import sys
import tempfile
import types
import unittest

from netprof_test_case import ROOT

TOOLS = os.path.join(ROOT, "scripts", "tools")


def load_tool(name, folder=TOOLS):
    """A script of scripts/tools (or `folder`) as a module (its main() does not run)."""
    spec = importlib.util.spec_from_file_location(f"tool_{name}", os.path.join(folder, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


knee = load_tool("knee")
compare = load_tool("compare")
plot = load_tool("plot")
sweep = load_tool("sweep")
instructions = load_tool("instructions_per_message", os.path.join(ROOT, "scripts", "bench"))
placement = load_tool("placement_runs", os.path.join(ROOT, "scripts", "bench"))
figures = sys.modules["netprof_figures"]
# plot.py's lines and panels live in the modules it imports.
sweep_rows = sys.modules["netprof_sweep_rows"]
sweep_plots = sys.modules["netprof_sweep_plots"]
import netprof_merge as merge  # noqa: E402  (scripts/lib is on the path once a tool loaded)


def search_below(limit, **bounds):
    """The knee search of a transport that carries any rate up to `limit` and nothing above."""
    settings = {"start_hz": 1000, "min_hz": 10, "max_hz": 1e7, "resolution": 0.05,
                "max_probes": 30, **bounds}
    return knee.search(lambda rate: rate <= limit, **settings)


class KneeSearchTest(unittest.TestCase):
    def test_doubles_up_to_a_failure_then_bisects_to_the_resolution(self):
        sut = search_below(3000)
        self.assertEqual(sut.tried[:3], [(1000, True), (2000, True), (4000, False)])
        self.assertLessEqual(sut.passed_hz, 3000)
        self.assertGreater(sut.failed_hz, 3000)
        self.assertLessEqual(sut.failed_hz / sut.passed_hz, 1.05)
        self.assertEqual(sut.stopped_by, "resolution")

    def test_halves_down_when_the_start_rate_fails(self):
        sut = search_below(300)
        self.assertEqual(sut.tried[:3], [(1000, False), (500, False), (250, True)])
        self.assertTrue(250 <= sut.passed_hz <= 300 < sut.failed_hz <= 315)

    def test_a_passing_max_hz_is_the_knee_and_says_so(self):
        sut = search_below(1e9, max_hz=4000)
        self.assertEqual((sut.passed_hz, sut.failed_hz, sut.stopped_by), (4000, None, "max-hz"))
        self.assertEqual([rate for rate, _ in sut.tried], [1000, 2000, 4000])

    def test_failing_at_min_hz_has_no_knee(self):
        sut = search_below(5, min_hz=100)
        self.assertEqual((sut.passed_hz, sut.failed_hz, sut.stopped_by), (None, 100, "min-hz"))

    def test_max_probes_bounds_the_runs(self):
        sut = search_below(3000, max_probes=4)
        self.assertEqual(len(sut.tried), 4)
        self.assertEqual(sut.stopped_by, "max-probes")

    def test_a_search_cut_short_by_max_probes_has_not_converged(self):
        self.assertFalse(search_below(3000, max_probes=4).converged)
        self.assertFalse(search_below(1e9, max_probes=2).converged)  # never failed, never bounded
        for sut in (search_below(3000), search_below(1e9, max_hz=4000),
                    search_below(5, min_hz=100)):
            self.assertTrue(sut.converged, sut.stopped_by)

    def test_midpoints_are_geometric_and_round(self):
        self.assertEqual(knee.midpoint(1000, 2000), 1410)
        self.assertTrue(100 < knee.midpoint(100, 101) < 101)
        self.assertIsNone(knee.midpoint(100, 100.0001))


def publisher_report(lost=0, loss_percent=0.0, p99_ns=10_000, received_per_second=1000.0):
    latency = {"p50": 5000, "p90": 8000, "p99": p99_ns, "max": p99_ns, "mean": 6000}
    return {"publisher": {"latency": {"one_way_ns": latency, "rtt_ns": latency}},
            "subscribers": [{"counters_received": True, "lost": lost, "loss_percent": loss_percent,
                             "throughput": {"messages_per_second": received_per_second,
                                            "payload_bytes_per_second": 0,
                                            "wire_bytes_per_second": 0}}]}


class KneeCriterionTest(unittest.TestCase):
    sut = knee.Criterion(p99_max_ns=20_000)

    def test_a_clean_run_at_the_rate_passes(self):
        self.assertEqual(self.sut.judge(publisher_report(), 1000), "")

    def test_loss_a_slow_p99_or_a_rate_not_delivered_fail(self):
        self.assertIn("lost 3", self.sut.judge(publisher_report(lost=3, loss_percent=0.3), 1000))
        self.assertIn("p99 50.0 µs", self.sut.judge(publisher_report(p99_ns=50_000), 1000))
        self.assertIn("received", self.sut.judge(publisher_report(received_per_second=500), 1000))

    def test_a_rate_is_judged_by_the_median_of_its_runs_p99(self):
        self.assertEqual(self.sut.judge_rate([10_000, 90_000, 12_000]), "")
        self.assertEqual(self.sut.judge_rate([90_000, 80_000, 12_000]),
                         "p99 80.0 µs (median of 3 runs)")
        self.assertEqual(self.sut.judge(publisher_report(p99_ns=50_000), 1000, with_p99=False), "")

    def test_loss_within_max_loss_passes(self):
        lenient = knee.Criterion(p99_max_ns=20_000, max_loss_percent=1)
        self.assertEqual(lenient.judge(publisher_report(lost=3, loss_percent=0.3), 1000), "")


class CompareStatisticsTest(unittest.TestCase):
    BASE = [100, 102, 101, 99, 103]

    def judge(self, baseline, contender, higher_is_better=False, threshold=5.0):
        return compare.judge(baseline, contender, higher_is_better, alpha=0.05,
                             threshold_percent=threshold, min_runs=compare.runs_needed(0.05))

    def test_a_clear_latency_rise_is_worse_and_significant(self):
        sut = self.judge(self.BASE, [150, 152, 151, 149, 153])
        self.assertEqual(sut.verdict, "worse")
        self.assertLess(sut.p_value, 0.05)
        self.assertAlmostEqual(sut.change_percent, (151 - 101) / 101 * 100)

    def test_direction_follows_the_figure(self):
        self.assertEqual(self.judge(self.BASE, [150, 152, 151, 149, 153], True).verdict, "better")
        self.assertEqual(self.judge(self.BASE, [50, 52, 51, 49, 53], True).verdict, "worse")
        self.assertEqual(self.judge(self.BASE, [50, 52, 51, 49, 53]).verdict, "better")

    def test_overlapping_samples_are_noise(self):
        sut = self.judge(self.BASE, [101, 98, 104, 100, 102])
        self.assertEqual(sut.verdict, "noise")
        self.assertGreater(sut.p_value, 0.05)

    def test_a_significant_change_below_the_threshold_is_noise(self):
        sut = self.judge(self.BASE, [103, 105, 104, 102, 106])
        self.assertLess(sut.p_value, 0.05)
        self.assertEqual(sut.verdict, "noise")

    def test_too_few_runs_to_reach_alpha_are_not_tested(self):
        # 3 against 3 can give p = 0.05 at best one-sided, never below 0.05.
        sut = self.judge([100, 101, 102], [200, 201, 202])
        self.assertEqual((sut.verdict, sut.p_value), ("too few runs", None))
        self.assertEqual(self.judge([100, 101], [200, 201, 202, 203, 204]).verdict,
                         "too few runs")
        self.assertAlmostEqual(compare.smallest_p_value(4, 4), 1 / 70)

    def test_the_default_minimum_can_reach_alpha(self):
        self.assertEqual(compare.runs_needed(0.05), 4)
        self.assertEqual(compare.runs_needed(0.01), 5)
        for alpha in (0.1, 0.05, 0.01, 0.001):
            runs = compare.runs_needed(alpha)
            self.assertLess(compare.smallest_p_value(runs, runs), alpha)
            self.assertGreaterEqual(compare.smallest_p_value(runs - 1, runs - 1), alpha)

    def test_four_runs_a_side_of_a_clear_regression_are_worse(self):
        # Two-sided, 4 against 4 gave p = 0.029; one-sided toward a regression 1/70.
        sut = self.judge([100, 101, 102, 103], [135, 136, 137, 138])
        self.assertEqual(sut.verdict, "worse")
        self.assertAlmostEqual(sut.p_value, 1 / 70)
        rates = self.judge([100, 101, 102, 103], [64, 65, 66, 67], higher_is_better=True)
        self.assertEqual(rates.verdict, "worse")

    def test_loss_appearing_from_zero_is_worse_and_no_loss_either_side_is_noise(self):
        appeared = self.judge([0] * 5, [0.5, 0.4, 0.6, 0.5, 0.7])
        self.assertEqual((appeared.verdict, appeared.change_percent), ("worse", math.inf))
        self.assertEqual(self.judge([0] * 5, [0] * 5).verdict, "noise")

    def test_one_group_each_side_is_compared_even_when_they_differ(self):
        udp = compare.Key("udp", "stream", 64, 1)
        shm = compare.Key("shm", "stream", 64, 1)
        self.assertEqual(compare.pair_keys({udp: []}, {shm: []}), ([(udp, shm)], [], []))
        self.assertEqual(compare.pair_keys({udp: [], shm: []}, {shm: []}),
                         ([(shm, shm)], [udp], []))


def sweep_row(size, status="ok", p50="1000", loss="0"):
    return {"transport": "udp", "payload_size": str(size), "status": status,
            "one_way_p50_ns": p50 if status == "ok" else "", "loss_percent": loss}


class PlotLinesTest(unittest.TestCase):
    PANEL = sweep_plots.LATENCY_PANELS[0]

    def test_a_size_with_no_successful_run_breaks_the_line(self):
        groups = sweep_rows.group_runs([sweep_row(64), sweep_row(128, status="failed"), sweep_row(256)])
        sizes, medians, dots = sweep_rows.series_line(groups, "udp", self.PANEL)
        self.assertEqual(sizes, [64, 128, 256])
        self.assertEqual(medians[0], 1.0)
        self.assertTrue(math.isnan(medians[1]))
        self.assertEqual(dots, [(64, 1.0), (256, 1.0)])

    def test_a_zero_on_a_log_axis_is_a_gap_not_a_point(self):
        groups = sweep_rows.group_runs([sweep_row(64, p50="0"), sweep_row(128)])
        _, medians, _ = sweep_rows.series_line(groups, "udp", self.PANEL)
        self.assertTrue(math.isnan(medians[0]))

    def test_sizes_with_loss_are_marked(self):
        groups = sweep_rows.group_runs([sweep_row(64), sweep_row(128, loss="0.2"), sweep_row(256)])
        self.assertEqual(sweep_rows.lossy_sizes(groups, "udp"), [128])


class PlotPanelsTest(unittest.TestCase):
    def test_throughput_axes_have_units_and_a_loss_panel_beside_them(self):
        units = [panel.unit for panel in sweep_plots.THROUGHPUT_PANELS]
        self.assertIn("msg/s", units[0])
        self.assertIn("MB/s", units[1])
        self.assertEqual(sweep_plots.THROUGHPUT_PANELS[2].column, "loss_percent")
        self.assertEqual([panel.marks_loss for panel in sweep_plots.THROUGHPUT_PANELS],
                         [True, True, False])


class MergedCsvRowTest(unittest.TestCase):
    """subscribers.csv's loss columns: the publisher's count wherever it has one."""

    def row(self, fanout, own, seen):
        publisher = {"settings": {"fanout": fanout}, "publisher": {"messages_sent": 300},
                     "subscribers": [seen] if seen else []}
        entry = {"name": "s1", "id": 1, "ssh": "h1", "address": "10.0.0.2", "exit_code": 0,
                 "report": {"subscriber": own}}
        return merge.csv_row("t", entry, publisher)

    def test_round_robin_loss_is_the_publishers_against_the_share_dealt(self):
        own = {"received": 99, "lost": 0, "loss_percent": 0.0}
        seen = {"id": 1, "counters_received": True, "lost": 1, "loss_percent": 1.0,
                "messages_owed": 100}
        row = self.row("round-robin", own, seen)
        self.assertEqual((row["lost"], row["loss_percent"], row["messages_owed"]), (1, 1.0, 100))

    def test_round_robin_without_the_publishers_count_leaves_loss_empty(self):
        # The subscriber's own 0 is not a loss figure: it cannot know what was dealt to it.
        row = self.row("round-robin", {"received": 99, "lost": 0, "loss_percent": 0.0}, None)
        self.assertEqual((row["lost"], row["loss_percent"]), (None, None))

    def test_without_the_publishers_count_the_subscribers_own_stands(self):
        row = self.row("all", {"received": 290, "lost": 10, "loss_percent": 3.3}, None)
        self.assertEqual((row["lost"], row["loss_percent"]), (10, 3.3))


class SweepDefaultsTest(unittest.TestCase):
    def test_streams_are_unpaced_by_default_and_auto_paces_them(self):
        unpaced = sweep.parse_arguments(["--out", "unused"])
        self.assertEqual(sweep.send_hz_for(unpaced, 64), 0.0)
        paced = sweep.parse_arguments(["--out", "unused", "--send-hz", "auto"])
        self.assertEqual(sweep.send_hz_for(paced, 64), sweep.AUTO_MAX_HZ)

    def test_a_list_of_subscriber_counts_is_part_of_the_grid(self):
        arguments = sweep.parse_arguments(["--out", "unused", "--subscribers", "1,4,8",
                                           "--sizes", "64"])
        self.assertEqual(arguments.subscribers, [1, 4, 8])
        setup = types.SimpleNamespace(name="udp")
        self.assertEqual([point[2] for point in sweep.plan_points(arguments, [setup])], [1, 4, 8])

    def test_a_subscriber_count_below_one_is_refused(self):
        for text in ("0", "1,x", ","):
            with self.subTest(text=text), self.assertRaises(figures.ArgumentError):
                sweep.parse_arguments(["--out", "unused", "--subscribers", text])


class CallgrindOutputTest(unittest.TestCase):
    """A local pair under callgrind leaves one output per process: the parent's, which counts
    nothing, and each role's, told apart by its command line."""

    def role_and_total(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".callgrind", delete=False) as output:
            output.write(text)
        self.addCleanup(os.unlink, output.name)
        return instructions.role_and_total(instructions.pathlib.Path(output.name))

    def test_a_role_is_named_by_its_id_and_counts_its_totals(self):
        self.assertEqual(self.role_and_total(
            "version: 1\ncmd:  /b/netprof -i 1 --mode stream --uds /tmp/x.sock\n"
            "events: Ir\nsummary: 215212435\ntotals: 215212435\n"), ("-i 1", 215212435))

    def test_the_local_pairs_parent_is_no_role(self):
        self.assertEqual(self.role_and_total(
            "cmd:  ./netprof --local-pair --uds --mode stream\nsummary: 0\ntotals: 0\n"),
            (None, 0))


class PlacementRunsTest(unittest.TestCase):
    """bench_spin_tails.sh compares only runs that held one placement of the vCPUs: a run during
    which the floor moved, or one on a placement fewer runs held, compares nothing."""

    def kept(self, before, after):
        return placement.kept_runs(placement.numbers(before), placement.numbers(after))

    def test_the_placement_most_runs_held_is_kept_and_a_move_is_left_out(self):
        kept, moved, others, unfloored = self.kept("60 95 60 n/a 65 200 60",
                                                   "60 100 110 60 60 210 55")
        self.assertEqual(kept, [0, 4, 6])
        self.assertEqual(moved, [2], "60 before, 110 after: the vCPUs moved during it")
        self.assertEqual(others, [1, 5])
        self.assertEqual(unfloored, [3])

    def test_on_a_tie_the_closer_placement_is_kept(self):
        self.assertEqual(self.kept("200 60", "200 60")[0], [1])

    def test_near_and_far_keep_the_closest_and_the_farthest_placement_whatever_most_held(self):
        before, after = "60 105 60 110 60 100 200", "60 110 60 105 60 100 400"
        kept = lambda keep: placement.kept_runs(placement.numbers(before), placement.numbers(after),
                                                keep)[:3]
        self.assertEqual(kept("most"), ([0, 2, 4], [6], [1, 3, 5]))
        self.assertEqual(kept("near"), ([0, 2, 4], [6], [1, 3, 5]))
        self.assertEqual(kept("far"), ([1, 3, 5], [6], [0, 2, 4]))

    def test_far_passes_over_a_farther_placement_too_few_runs_held(self):
        before = after = "60 100 100 100 400"
        self.assertEqual(placement.kept_runs(placement.numbers(before), placement.numbers(after),
                                             "far", 3)[0], [1, 2, 3])
        self.assertEqual(placement.kept_runs(placement.numbers(before), placement.numbers(after),
                                             "far")[0], [4])

    def test_the_line_names_the_placement_asked_for(self):
        lines = self.printed("--keep", "far", "--at-least", "2", "60 100 105", "60 100 105",
                             "1 2 3")
        self.assertEqual(lines[0], "n/a 2 3")
        self.assertEqual(lines[1], "farthest placement with floors 100-105 ns one-way: runs 2 3"
                                   " (2 of 3); left out, on another placement: runs 1")

    def test_the_line_says_when_the_placement_asked_for_held_too_few_runs(self):
        lines = self.printed("--keep", "far", "--at-least", "2", "60 60 100", "60 60 100",
                             "1 2 3")
        self.assertEqual(lines[0], "1 2 n/a")
        self.assertEqual(lines[1], "placement with floors 60-60 ns one-way: runs 1 2 (2 of 3);"
                                   " runs 3 held a farther one, too few to judge; left out, on"
                                   " another placement: runs 3")

    def test_an_unknown_placement_is_a_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(placement.main(["--keep", "middle", "60", "60", "1"]), 2)

    def test_no_steady_run_keeps_nothing(self):
        self.assertEqual(self.kept("60 n/a", "200 n/a"), ([], [0], [], [1]))

    def test_a_figure_of_a_run_left_out_reads_n_a(self):
        lines = self.printed("60 200 60", "60 200 60", "1.5 2.5 3.5")
        self.assertEqual(lines[0], "1.5 n/a 3.5")
        self.assertEqual(lines[1], "placement with floors 60-60 ns one-way: runs 1 3 (2 of 3);"
                                   " left out, on another placement: runs 2")

    def test_too_few_runs_on_one_placement_are_not_judged(self):
        lines = self.printed("--at-least", "3", "60 60 200", "60 60 200", "1.5 2.5 3.5")
        self.assertEqual(lines[0], "n/a n/a n/a")
        self.assertTrue(lines[1].endswith(": fewer than 3 runs, not judged"), lines[1])
        self.assertEqual(self.printed("--at-least", "2", "60 60 200", "60 60 200", "1 2 3")[0],
                         "1 2 n/a")

    def printed(self, *arguments):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            self.assertEqual(placement.main(list(arguments)), 0)
        return output.getvalue().splitlines()


if __name__ == "__main__":
    unittest.main()
