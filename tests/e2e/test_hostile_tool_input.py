"""Hostile input to the analysis tools: a table of malformed files, generated here, given to
every tool that reads files (compare.py, plot.py, and launch.py's merge of the reports other
hosts sent, scripts/lib/netprof_merge.py; sweep.py and knee.py read only the reports of the
netprof runs they start, through netprof_processes.read_report). Each must end with exit 2 and
exactly one line on stderr naming the file, never a traceback; the merge still writes what it
could. No netprof process runs.
"""

import contextlib
import csv
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
import warnings

from netprof_test_case import ROOT, run_script

sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import netprof_processes as processes_lib  # noqa: E402
import netprof_merge as merge  # noqa: E402
import netprof_remote as remote  # noqa: E402
from netprof_launch_run import RoleResult  # noqa: E402
from test_compare import report  # noqa: E402

COMPARE = os.path.join(ROOT, "scripts", "tools", "compare.py")
PLOT = os.path.join(ROOT, "scripts", "tools", "plot.py")


def load_tool(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3] + "_tool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare_tool, plot_tool = load_tool(COMPARE), load_tool(PLOT)
SWEEP_HEADER = ["transport", "mode", "payload_size", "subscribers", "status", "repetition",
                "send_hz", "one_way_p50_ns", "one_way_p99_ns", "one_way_max_ns",
                "messages_per_second", "payload_bytes_per_second", "lost", "loss_percent",
                "publisher.latency.one_way_ns.mean"]
GOOD_ROW = {"transport": "udp", "mode": "stream", "payload_size": "128", "subscribers": "1",
            "status": "ok", "repetition": "1", "send_hz": "1000", "one_way_p50_ns": "10000",
            "one_way_p99_ns": "20000", "one_way_max_ns": "50000", "messages_per_second": "1000",
            "payload_bytes_per_second": "128000", "lost": "0", "loss_percent": "0",
            "publisher.latency.one_way_ns.mean": "11000"}


def nested(depth):
    return "[" * depth + "]" * depth


def report_with(change):
    document = report(10_000)
    change(document)
    return json.dumps(document)


def sweep_csv(**changes):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SWEEP_HEADER)
    writer.writeheader()
    writer.writerow({**GOOD_ROW, **changes})
    return out.getvalue()


def set_path(path, value):
    def change(document):
        *parents, last = path
        for key in parents:
            document = document[key]
        document[last] = value
    return change


# (name, bytes): every one a file a tool might be handed, none of them a netprof file.
REPORT_INPUTS = [
    ("nested-100000", ('{"schema_version": 1, "publisher": ' + nested(100_000) + "}").encode()),
    ("nested-100000-bare", nested(100_000).encode()),
    ("nested-100", ('{"schema_version": 1, "publisher": ' + nested(100) + "}").encode()),
    ("not-utf8", b'{"schema_version": 1, "x": "\xff\xfe"}'),
    ("truncated", report_with(lambda d: None)[:200].encode()),
    ("nan", report_with(lambda d: None).replace('"p50": 10000', '"p50": NaN').encode()),
    ("infinity", report_with(lambda d: None).replace('"p99": 20000', '"p99": Infinity').encode()),
    ("publisher-null", report_with(set_path(["publisher"], None)).encode()),
    ("latency-list", report_with(set_path(["publisher", "latency"], [])).encode()),
    ("p50-text", report_with(set_path(["publisher", "latency", "one_way_ns", "p50"],
                                      "fast")).encode()),
    ("p50-bool", report_with(set_path(["publisher", "latency", "one_way_ns", "p50"],
                                      True)).encode()),
    ("p50-400-digits", report_with(set_path(["publisher", "latency", "one_way_ns", "p50"],
                                            0)).replace('"p50": 0', '"p50": ' + "9" * 400)
     .encode()),
    ("mean-text", report_with(set_path(["publisher", "latency", "one_way_ns", "mean"],
                                       "x")).encode()),
    ("subscribers-dict", report_with(set_path(["subscribers"], {"a": 1})).encode()),
    ("subscriber-null", report_with(set_path(["subscribers"], [None])).encode()),
    ("throughput-null", report_with(set_path(["subscribers", 0, "throughput"], None)).encode()),
    ("rate-text", report_with(set_path(["subscribers", 0, "throughput",
                                        "messages_per_second"], "lots")).encode()),
    ("settings-list", report_with(set_path(["settings"], [1])).encode()),
    ("size-text", report_with(set_path(["settings", "payload_size"], "big")).encode()),
    ("size-400-digits", report_with(set_path(["settings", "payload_size"], 0))
     .replace('"payload_size": 0', '"payload_size": ' + "9" * 400).encode()),
    ("size-negative", report_with(set_path(["settings", "payload_size"], -5)).encode()),
    ("top-level-array", b"[1, 2, 3]"),
    ("empty-object", b"{}"),
]
CSV_INPUTS = [
    ("field-200k", sweep_csv(transport="u" * 200_000).encode()),
    ("csv-not-utf8", sweep_csv().encode() + b"udp,\xff\xfe,128\n"),
    ("csv-nul", sweep_csv().encode().replace(b"stream", b"str\0eam")),
    ("csv-size-text", sweep_csv(payload_size="big").encode()),
    ("csv-size-400-digits", sweep_csv(payload_size="9" * 400).encode()),
    ("csv-size-float", sweep_csv(payload_size="1e400").encode()),
    ("csv-p50-text", sweep_csv(one_way_p50_ns="fast").encode()),
    ("csv-p50-nan", sweep_csv(one_way_p50_ns="nan").encode()),
    ("csv-p99-inf", sweep_csv(one_way_p99_ns="inf").encode()),
    ("csv-rate-400-digits", sweep_csv(messages_per_second="9" * 400).encode()),
    ("csv-short-row", (sweep_csv() + "udp,stream\n").encode()),
    ("csv-no-header", b"1,2,3\n4,5,6\n"),
    ("csv-empty", b""),
]
# A CSV is no report to the merge, and a report no CSV to plot: each tool gets the table it
# reads, and compare.py (which reads both) all of it.
PLOT_INPUTS = CSV_INPUTS + [("report-as-csv", REPORT_INPUTS[0][1])]
COMPARE_INPUTS = REPORT_INPUTS + CSV_INPUTS


def run_tool(tool, *args):
    """(exit status, stdout, stderr) of a tool's main() run in this process: the table has
    dozens of rows, and a process each (with scipy or matplotlib to load) takes minutes on a
    busy machine. A traceback would escape main() and fail the test as an error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = tool.main(list(args))
    return status, out.getvalue(), err.getvalue()


class MalformedInputCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-hostile-input-")
        self.addCleanup(self._tmp.cleanup)
        self.dir = self._tmp.name

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(content)
        return path

    def assert_one_line_exit_2(self, result, path):
        returncode, stdout, stderr = result
        self.assertNotIn("Traceback", stderr)
        self.assertEqual(returncode, 2, stderr)
        self.assertEqual(stderr.count("\n"), 1, stderr)
        self.assertIn(path, stderr)
        self.assertLess(len(stderr), 600, stderr)


class CompareTest(MalformedInputCase):
    def test_every_malformed_input_is_refused_in_one_line(self):
        good = [self.write(f"good-{i}.json", json.dumps(report(10_000)).encode())
                for i in range(3)]
        for name, content in COMPARE_INPUTS:
            with self.subTest(input=name):
                path = self.write(name, content)
                self.assert_one_line_exit_2(
                    run_tool(compare_tool, "--baseline", path, *good[1:], "--contender",
                             *good), path)

    def test_the_script_itself_refuses_a_report_nested_100000_deep(self):
        good = self.write("good.json", json.dumps(report(10_000)).encode())
        path = self.write("deep.json", dict(REPORT_INPUTS)["nested-100000"])
        self.assert_one_line_exit_2(
            run_script(COMPARE, "--baseline", path, "--contender", good), path)

    def test_nan_and_infinity_in_a_report_are_refused_not_compared(self):
        good = [self.write(f"good-{i}.json", json.dumps(report(10_000)).encode())
                for i in range(3)]
        for name in ("nan", "infinity"):
            with self.subTest(input=name):
                path = self.write(name, dict(REPORT_INPUTS)[name])
                returncode, _, stderr = run_tool(compare_tool, "--baseline", path,
                                                 "--contender", *good)
                self.assertEqual(returncode, 2, stderr)
                self.assertIn("is not a JSON number", stderr)


class PlotTest(MalformedInputCase):
    def test_every_malformed_input_is_refused_in_one_line(self):
        for name, content in PLOT_INPUTS:
            with self.subTest(input=name):
                path = self.write(name + ".csv", content)
                self.assert_one_line_exit_2(
                    run_tool(plot_tool, path, "--out", os.path.join(self.dir, "plots")), path)

    def test_the_script_itself_refuses_a_400_digit_size(self):
        path = self.write("sweep.csv", dict(CSV_INPUTS)["csv-size-400-digits"])
        self.assert_one_line_exit_2(run_script(PLOT, path, "--out", self.dir), path)

    def test_a_good_sweep_still_plots(self):
        path = self.write("sweep.csv", sweep_csv().encode())
        returncode, stdout, stderr = run_script(PLOT, path, "--out", self.dir)
        self.assertEqual(returncode, 0, stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "sweep-latency.png")))


class Role:
    def __init__(self, name, index):
        self.name, self.role, self.index = name, "subscriber" if index else "publisher", index
        self.ssh, self.address, self.port, self.cpu = f"{name}.lab", "10.0.0.1", 40000, None


class LaunchMergeTest(MalformedInputCase):
    """launch.py's path from the text a host sent to merged.json and subscribers.csv."""

    def merge_with(self, subscriber_text):
        roles = [Role("pub", 0), Role("sub", 1)]
        results = {}
        for role, text in zip(roles, (json.dumps(report(10_000)), subscriber_text)):
            parsed, why = merge.parse_report(text, remote.REPORT_LIMIT_BYTES)
            results[role.name] = RoleResult(exit_code=0, problem=why or "", report=parsed,
                                            malformed_report=bool(why))
        merged = merge.merged_report({"run_tag": "t"}, roles, results)
        json_path, csv_path = (os.path.join(self.dir, name)
                               for name in ("merged.json", "subscribers.csv"))
        merge.write(merged, json_path, csv_path)
        return results["sub"], json_path, csv_path

    def test_every_malformed_report_is_named_and_the_rest_is_still_merged(self):
        for name, content in REPORT_INPUTS:
            with self.subTest(input=name):
                text = content.decode("utf-8", errors="replace")
                result, json_path, csv_path = self.merge_with(text)
                with open(json_path) as f:
                    merged = json.load(f)  # valid JSON: no NaN, no recursion
                self.assertEqual(merged["publisher"]["report"]["schema_version"], 1)
                with open(csv_path) as f:
                    self.assertEqual(len(list(csv.DictReader(f))), 1)
                if result.report is None:
                    self.assertTrue(result.malformed_report)
                    self.assertNotIn("\n", result.problem)
                    self.assertTrue(result.problem.startswith("report"), result.problem)

    def test_a_report_nested_100000_deep_is_refused_without_recursion(self):
        result, _, _ = self.merge_with(dict(REPORT_INPUTS)["nested-100000"].decode())
        self.assertIsNone(result.report)
        self.assertIn("nested too deeply", result.problem)

    def test_nan_in_a_report_is_refused(self):
        result, _, _ = self.merge_with(dict(REPORT_INPUTS)["nan"].decode())
        self.assertIsNone(result.report)
        self.assertIn("NaN is not a JSON number", result.problem)


class HarnessReportTest(MalformedInputCase):
    """sweep.py and knee.py read the reports of their own runs through read_report: a
    malformed one is no report (the run's failure reason says so), never a traceback."""

    def test_every_malformed_report_reads_as_none(self):
        for name, content in REPORT_INPUTS:
            if name == "empty-object":
                continue  # an object with no publisher: a subscriber's report, read as such
            with self.subTest(input=name):
                self.assertIsNone(processes_lib.read_report(self.write(name, content)))

    def test_a_good_report_reads_whole(self):
        path = self.write("good.json", json.dumps(report(10_000)).encode())
        self.assertEqual(processes_lib.read_report(path)["schema_version"], 1)


if __name__ == "__main__":
    unittest.main()
