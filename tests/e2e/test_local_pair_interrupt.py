"""End-to-end: `timeout -s INT` on a --local-pair (issue 18, "Honest figures").

coreutils' timeout signals its command, then the command's whole process group: the local
pair's parent gets SIGINT twice and each child once. The parent used to die of the second (a
second SIGINT ends a process where it stands), before its publisher child had written the
report, which then appeared after the command had "finished". Now, however often it is
interrupted, the parent passes the interrupt on, waits (at most 5 s per child) for its children
to finish, then exits 130: when it is gone, the report is whole and nothing is left to write it.

Each run is interrupted the way timeout does it, 10 times per transport, at different moments
(waiting for the subscriber, warm-up, measured phase) and with the two signals back to back or
a few milliseconds apart (when the parent has already handled the first).
"""

import json
import os
import signal
import subprocess
import time
import unittest

from netprof_test_case import NETPROF, NetprofTestCase

RUNS = 10
INTERRUPTED = 130
# Starting up, then the parent's bound of 5 s per child, with room for a loaded machine.
DEADLINE_S = 30
SIGINT_CAUGHT = 1 << (signal.SIGINT - 1)


def children_of(pid):
    """PIDs whose parent is `pid`, read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The command name, in parentheses, may hold spaces: the fields follow its end.
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def catches_sigint(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return int(line.split()[1], 16) & SIGINT_CAUGHT != 0
    except OSError:
        pass
    return False


class LocalPairInterruptTest(NetprofTestCase):
    def start_pair(self, transport_args, stem, subscribers):
        """Starts a local pair (a local group of `subscribers`) leading a process group of its
        own, stdout to a file (a pipe would stay open while any child lives, and so hide a
        parent that left early)."""
        json_path = self.json_path(stem)
        stdout_path = os.path.join(self._tmp.name, stem + ".out")
        with open(stdout_path, "w") as stdout:
            process = subprocess.Popen(
                [NETPROF, "--local-pair", *transport_args, "--subscribers", str(subscribers),
                 "-t", "30", "--send-hz", "2000", "--warmup-time", "0.2", "--json", json_path],
                stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.DEVNULL,
                start_new_session=True)
        self.addCleanup(self.kill_group, process)
        return process, json_path, stdout_path

    def kill_group(self, process):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def wait_until_every_process_handles_sigint(self, process, subscribers):
        """Until the parent and every child have their handlers in place: an interrupt that
        comes earlier kills a child outright, which is not what this test is about."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            self.assertIsNone(process.poll(), "the local pair exited before it was interrupted")
            children = children_of(process.pid)
            if (len(children) == 1 + subscribers
                    and all(map(catches_sigint, [process.pid, *children]))):
                return
            self.assertLess(time.monotonic(), deadline, "the local pair never got going")
            time.sleep(0.01)

    def interrupt_like_timeout(self, process, gap_s):
        process.send_signal(signal.SIGINT)
        if gap_s:
            time.sleep(gap_s)
        os.killpg(process.pid, signal.SIGINT)

    def group_is_gone(self, pgid):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        return False

    def interrupted_runs(self, transport_args, subscribers=1, runs=RUNS):
        for run in range(runs):
            with self.subTest(run=run):
                process, json_path, stdout_path = self.start_pair(transport_args, f"run{run}",
                                                                  subscribers)
                self.wait_until_every_process_handles_sigint(process, subscribers)
                time.sleep(0.1 * (run % 5))  # into the wait, the warm-up, the measured phase
                self.interrupt_like_timeout(process, gap_s=[0, 0.001, 0.005][run % 3])
                try:
                    status = process.wait(timeout=DEADLINE_S)
                except subprocess.TimeoutExpired:
                    self.fail(f"the local pair outlived its deadline of {DEADLINE_S} s")

                # The moment the parent is gone, so are its children, and the report is whole.
                self.assertTrue(self.group_is_gone(process.pid),
                                "a child outlived the local pair's parent")
                self.assertEqual(status, INTERRUPTED)
                with open(json_path, "rb") as f:
                    written = f.read()
                with open(stdout_path, "rb") as f:
                    printed = f.read()
                report = json.loads(written)
                self.assertTrue(report["result"]["interrupted"])
                self.assertIn(b"Test: INTERRUPTED", printed)
                time.sleep(0.3)
                with open(json_path, "rb") as f:
                    self.assertEqual(f.read(), written, "the report changed after the exit")
                with open(stdout_path, "rb") as f:
                    self.assertEqual(f.read(), printed, "output came after the exit")

    def test_udp(self):
        self.interrupted_runs([])

    def test_a_local_group_of_three_subscribers(self):
        self.interrupted_runs([], subscribers=3, runs=3)

    def test_shm(self):
        name = f"interrupt-{os.getpid()}"
        self.addCleanup(self.remove_segment, f"/dev/shm/netprof-{name}")
        self.interrupted_runs(["--shm", name])

    def remove_segment(self, path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


if __name__ == "__main__":
    unittest.main()
