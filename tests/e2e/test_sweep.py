"""End-to-end: scripts/tools/sweep.py and scripts/tools/plot.py on a tiny sweep over UDP loopback.

The scripts run as a user runs them (by path, through their #!/usr/bin/python3 line), each
under a deadline; whatever they leave behind is in a temporary folder removed at the end.
"""

import csv
import functools
import os
import subprocess
import tempfile
import textwrap
import unittest

from netprof_test_case import NETPROF, ROOT, run_script

SWEEP = os.path.join(ROOT, "scripts", "tools", "sweep.py")
PLOT = os.path.join(ROOT, "scripts", "tools", "plot.py")
DEADLINE_S = 120
TINY = ["--transports", "udp", "--duration", "0.3", "--warmup", "0.1", "--send-hz", "2000"]
# A UDP message limit below the second size: netprof refuses it (exit 2, naming the size).
TOO_SMALL_LIMIT = ["--netprof-args", "--udp-max-message 2000"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


@functools.lru_cache(maxsize=None)  # importing matplotlib takes a second or two
def system_python_has_matplotlib():
    if not os.path.exists("/usr/bin/python3"):
        return False
    return subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                          capture_output=True, timeout=60).returncode == 0


class SweepTestCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-sweep-")
        self.addCleanup(self._tmp.cleanup)
        self.out = os.path.join(self._tmp.name, "out")

    def sweep(self, *args):
        return run_script(SWEEP, "--netprof", NETPROF, "--out", self.out, *args)


class TinySweepTest(SweepTestCase):
    """One tiny sweep shared by the tests that only read its results."""

    @classmethod
    def setUpClass(cls):
        cls._class_tmp = tempfile.TemporaryDirectory(prefix="netprof-sweep-")
        cls.addClassCleanup(cls._class_tmp.cleanup)
        cls.tiny_out = os.path.join(cls._class_tmp.name, "tiny")
        cls.tiny = run_script(SWEEP, "--netprof", NETPROF, "--out", cls.tiny_out, *TINY,
                              "--sizes", "64,1024")
        cls.columns, cls.rows = read_csv(os.path.join(cls.tiny_out, "sweep.csv"))

    def test_tiny_sweep_writes_one_row_per_point_with_every_figure(self):
        returncode, _, stderr = self.tiny
        self.assertEqual(returncode, 0, stderr)
        self.assertEqual([(row["transport"], row["payload_size"]) for row in self.rows],
                         [("udp", "64"), ("udp", "1024")])
        for column in ("status", "exit_code", "reason", "one_way_p50_ns", "messages_per_second",
                       "publisher.latency.one_way_ns.p99", "publisher.latency.rtt_ns.max",
                       "publisher.messages_sent", "subscribers.0.lost",
                       "subscribers.0.throughput.payload_bytes_per_second",
                       "subscribers.0.datagrams", "subscribers.0.wire_bytes",
                       "result.status", "host.cpu_model", "host.kernel", "host.cores"):
            self.assertIn(column, self.columns)
        for row in self.rows:
            self.assertEqual((row["status"], row["exit_code"], row["reason"]), ("ok", "0", ""))
            self.assertEqual(row["result.status"], "SUCCESS")
            self.assertEqual(row["settings.payload_size"], row["payload_size"])
            self.assertGreater(float(row["one_way_p50_ns"]), 0)
            self.assertGreater(float(row["messages_per_second"]), 0)
            self.assertTrue(os.path.isfile(os.path.join(self.tiny_out, row["json_file"])))

    def test_progress_names_each_point_with_an_estimate_of_the_time_left(self):
        _, _, stderr = self.tiny
        self.assertIn("[1/2] udp 64 B (rep 1/1) ... ok, ETA", stderr)
        self.assertIn("[2/2] udp 1024 B (rep 1/1) ... ok, ETA 0s", stderr)

    @unittest.skipUnless(system_python_has_matplotlib(),
                         "/usr/bin/python3 has no matplotlib (scripts/setup/install_deps.sh installs "
                         "python3-matplotlib)")
    def test_plot_writes_valid_pngs_and_a_markdown_table(self):
        plots = os.path.join(self._class_tmp.name, "plots")
        returncode, _, stderr = run_script(PLOT, os.path.join(self.tiny_out, "sweep.csv"),
                                           "--out", plots)
        self.assertEqual(returncode, 0, stderr)
        for name in ("sweep-latency.png", "sweep-throughput.png"):
            with open(os.path.join(plots, name), "rb") as f:
                image = f.read()
            self.assertTrue(image.startswith(PNG_SIGNATURE), name)
            self.assertGreater(len(image), 10_000, f"{name} is too small to hold a plot")
        with open(os.path.join(plots, "sweep.md")) as f:
            table = f.read()
        self.assertIn("| payload | udp |", table)
        self.assertIn("| 1 KiB |", table)


class SubscriberCountsTest(SweepTestCase):
    def test_a_list_of_subscriber_counts_sweeps_each_and_plots_each_subscribers_latency(self):
        returncode, _, stderr = self.sweep(*TINY, "--sizes", "64", "--subscribers", "1,2")
        self.assertEqual(returncode, 0, stderr)
        self.assertIn("[2/2] udp 64 B, 2 subscribers (rep 1/1) ... ok", stderr)
        _, rows = read_csv(os.path.join(self.out, "sweep.csv"))
        self.assertEqual([(row["subscribers"], row["status"]) for row in rows],
                         [("1", "ok"), ("2", "ok")])
        self.assertEqual(rows[0]["subscribers.1.id"], "")
        self.assertGreater(float(rows[1]["subscribers.1.latency.one_way_ns.p50"]), 0)
        if not system_python_has_matplotlib():
            self.skipTest("/usr/bin/python3 has no matplotlib")
        returncode, stdout, stderr = run_script(PLOT, os.path.join(self.out, "sweep.csv"))
        self.assertEqual(returncode, 0, stderr)
        self.assertIn("sweep-subscribers.png", stdout)
        with open(os.path.join(self.out, "sweep-subscribers.png"), "rb") as f:
            self.assertTrue(f.read().startswith(PNG_SIGNATURE))
        with open(os.path.join(self.out, "sweep.md")) as f:
            self.assertRegex(f.read(), r"\| 64 B \| 2 \| [0-9.,]+ \[")


class FailingPointTest(SweepTestCase):
    def test_a_point_netprof_refuses_is_recorded_as_failed_and_the_sweep_goes_on(self):
        returncode, _, stderr = self.sweep(*TINY, *TOO_SMALL_LIMIT, "--sizes", "64,4096,128")
        self.assertEqual(returncode, 0, stderr)
        _, rows = read_csv(os.path.join(self.out, "sweep.csv"))
        self.assertEqual([(row["payload_size"], row["status"]) for row in rows],
                         [("64", "ok"), ("4096", "failed"), ("128", "ok")])
        failed = rows[1]
        self.assertEqual(failed["exit_code"], "2")
        self.assertIn("too large", failed["reason"])
        self.assertIn("4096", failed["reason"])
        self.assertIn("[2/3] udp 4096 B (rep 1/1) ... FAILED", stderr)

    @unittest.skipUnless(system_python_has_matplotlib(), "/usr/bin/python3 has no matplotlib")
    def test_plot_marks_a_failed_point_in_the_table(self):
        self.sweep(*TINY, *TOO_SMALL_LIMIT, "--sizes", "64,4096")
        returncode, _, stderr = run_script(PLOT, os.path.join(self.out, "sweep.csv"))
        self.assertEqual(returncode, 0, stderr)
        with open(os.path.join(self.out, "sweep.md")) as f:
            table = f.read()
        self.assertIn("| 4 KiB | FAIL [1] |", table)
        self.assertIn("[1] publisher exited 2", table)

    def test_every_point_failing_exits_1(self):
        returncode, _, stderr = self.sweep(*TINY, *TOO_SMALL_LIMIT, "--sizes", "4096")
        self.assertEqual(returncode, 1, stderr)

    def test_a_hung_run_is_killed_at_its_deadline(self):
        fake = self.fake_netprof_that_hangs()
        returncode, _, stderr = run_script(SWEEP, "--netprof", fake, "--out", self.out,
                                           "--transports", "udp", "--sizes", "64",
                                           "--deadline", "1")
        self.assertEqual(returncode, 1, stderr)
        _, [row] = read_csv(os.path.join(self.out, "sweep.csv"))
        self.assertEqual(row["status"], "failed")
        self.assertIn("timed out", row["reason"])
        self.assertLess(float(row["elapsed_seconds"]), 15)
        self.assertEqual(self.processes_running(fake), [])

    def fake_netprof_that_hangs(self):
        """Lists udp like `netprof --list-transports --json`, then ignores SIGINT and sleeps:
        only SIGKILL ends it."""
        path = os.path.join(self._tmp.name, "hanging-netprof")
        with open(path, "w") as f:
            f.write(textwrap.dedent("""\
                #!/usr/bin/python3
                import json, signal, sys, time
                if "--list-transports" in sys.argv:
                    publisher = ["-u", "127.0.0.1:9"]
                    subscriber = ["-u", "127.0.0.1:10", "-u", "127.0.0.1:9"]
                    udp = {"name": "udp", "summary": "UDP unicast", "options": ["udp"],
                           "local_pair": {"publisher": publisher, "subscriber": subscriber},
                           "loopback": {"publisher": publisher, "subscribers": [subscriber],
                                        "files": []},
                           "needs_private_netns": False}
                    print(json.dumps({"schema_version": 1, "version": "0",
                                      "wire_header_bytes": 52, "transports": [udp]}))
                    sys.exit(0)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                time.sleep(60)
                """))
        os.chmod(path, 0o755)
        return path

    @staticmethod
    def processes_running(command_part):
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if command_part.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
        return found


class ArgumentsTest(SweepTestCase):
    def test_an_unknown_transport_exits_2_and_names_the_known_ones(self):
        returncode, _, stderr = self.sweep("--transports", "udp,carrier-pigeon")
        self.assertEqual(returncode, 2)
        self.assertIn("unknown transport carrier-pigeon", stderr)
        self.assertIn("udp", stderr)

    def test_a_size_that_is_not_a_payload_exits_2(self):
        for sizes in ("0", "12x", ""):
            with self.subTest(sizes=sizes):
                returncode, _, stderr = self.sweep("--transports", "udp", "--sizes", sizes)
                self.assertEqual(returncode, 2, stderr)
                self.assertIn("--sizes", stderr)


if __name__ == "__main__":
    unittest.main()
