"""Starts real netprof processes for end-to-end tests, each under a deadline.

Every process started here is tracked by PID and killed in cleanup, so a hung run fails its
test instead of hanging CI. Only loopback addresses are used.
"""

import json
import os
import signal
import socket
import subprocess
import tempfile
import unittest

NETPROF = os.environ.get("NETPROF_BIN", "netprof")
DEFAULT_DEADLINE_S = 60


def free_udp_port():
    """A port the kernel just gave out; free again when this returns (a small race we accept)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Finished:
    def __init__(self, returncode, stdout, stderr, json_report):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.json = json_report


class NetprofTestCase(unittest.TestCase):
    def setUp(self):
        self._processes = []
        self._group_leaders = []
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-e2e-")
        self.addCleanup(self._tmp.cleanup)
        self.addCleanup(self._kill_all)

    def _kill_all(self):
        for process in self._processes:
            if process in self._group_leaders:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # and whatever it started
                except ProcessLookupError:
                    pass
            elif process.poll() is None:
                process.kill()
            process.communicate(timeout=10)  # reaps it and closes its pipes

    def json_path(self, name):
        return os.path.join(self._tmp.name, name + ".json")

    def start(self, *args, json_name=None, own_group=False):
        """Starts netprof; returns (process, json_path or None). With `own_group` it leads a
        process group of its own, which a test may signal as a whole (os.killpg) and which
        cleanup kills as a whole."""
        argv = [NETPROF] + [str(a) for a in args]
        path = None
        if json_name:
            path = self.json_path(json_name)
            argv += ["--json", path]
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=own_group)
        self._processes.append(process)
        if own_group:
            self._group_leaders.append(process)
        return process, path

    def finish(self, process, path=None, deadline_s=DEFAULT_DEADLINE_S):
        try:
            stdout, stderr = process.communicate(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            self.fail(f"netprof did not finish within {deadline_s} s: {process.args}")
        report = None
        if path and os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                report = json.load(f)
        return Finished(process.returncode, stdout, stderr, report)

    def run_netprof(self, *args, json_name=None, deadline_s=DEFAULT_DEADLINE_S):
        process, path = self.start(*args, json_name=json_name)
        return self.finish(process, path, deadline_s)

    def interrupt(self, process):
        process.send_signal(signal.SIGINT)

    # Assertions a user would make of any successful report.
    def assert_latency_ordered(self, latency):
        self.assertGreater(latency["count"], 0)
        self.assertLessEqual(latency["min"], latency["p50"])
        self.assertLessEqual(latency["p50"], latency["p90"])
        self.assertLessEqual(latency["p90"], latency["p99"])
        self.assertLessEqual(latency["p99"], latency["p99_9"])
        self.assertLessEqual(latency["p99_9"], latency["p99_99"])
        self.assertLessEqual(latency["p99_99"], latency["max"])
