"""End-to-end: figures that tell the truth about a run that did not go as asked (issue 18,
"Honest figures"), through real processes.

- A keep-all send that gives up on a subscriber frozen for good (SIGSTOP) ends the measured
  phase at its last send: never "Measured time: 0 ns" beside hundreds of messages sent, and a
  "last heard" within the phase it names.
- A publisher that cannot send at --send-hz says so, with both figures.
- --json replaces the old report whole or not at all: on a full file system (a tiny tmpfs) the
  old file survives, and netprof exits 3 with one line saying why.

docs/hostile-input.md ("Honest figures") lists each case.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

from netprof_test_case import NOBODY, NetprofTestCase, become_nobody
from test_faults import free_tcp_port

DEADLINE_S = 40
# --wait: how long a send pushed back by the frozen subscriber is retried before giving up.
GIVE_UP_S = 3
RUNTIME = 3
USAGE = 2
SHORTFALL = re.compile(r"^sent ([\d,]+) messages at ([\d,]+) msg/s; --send-hz asked for "
                       r"1,000,000,000 \(300,000,000 over 0\.3 s\): the publisher could not "
                       r"keep up$")


def count(text):
    return int(text.replace(",", ""))


class FrozenSubscriberTest(NetprofTestCase):
    """A subscriber stopped with SIGSTOP mid-run stays alive, so a transport that waits for
    every live reader (shm keep-all, ZeroMQ --zmq-nodrop) pushes back until the publisher gives
    up after --wait."""

    SEND_HZ = 1000

    def frozen_subscriber(self, publisher_args, subscriber_args):
        subscriber = self.start_watched("-i", "1", *subscriber_args, json_name="sub")
        # SIGKILL ends a stopped process too; cleanups run last first, before kill_all.
        self.addCleanup(self.end_frozen, subscriber.process)
        publisher, pub_json = self.start(
            "-i", "0", *publisher_args, "-t", "60", "--send-hz", str(self.SEND_HZ),
            "--warmup-time", "0.2", "--wait", str(GIVE_UP_S), json_name="pub")
        self.wait_for_measured_data(subscriber)
        os.kill(subscriber.process.pid, signal.SIGSTOP)
        pub = self.finish(publisher, pub_json, DEADLINE_S)

        self.assertEqual(pub.returncode, RUNTIME, pub.stderr)
        figures = pub.json["publisher"]
        sent, measured = figures["messages_sent"], figures["measured_seconds"]
        self.assertGreater(sent, 0)
        self.assertGreater(measured, 0, "a phase that sent messages cannot have taken no time")
        # Sending went on after the freeze only until the ring or socket was full: the phase
        # ends there, not --wait later when the publisher gave up. The frozen subscriber echoed
        # probes (1,000 a second) until it stopped, so it was last heard just before.
        [frozen] = pub.json["subscribers"]
        self.assertEqual(frozen["outcome"], "vanished")
        self.assertLessEqual(frozen["last_heard_seconds"], measured)
        self.assertLess(measured - frozen["last_heard_seconds"], GIVE_UP_S / 2)
        # And it is the time the messages took to go out, at the paced rate at most.
        self.assertLess(sent / measured, 1.05 * self.SEND_HZ)
        problem = next(p for p in pub.json["result"]["problems"] if "vanished" in p)
        phase = float(re.search(r"into the ([\d.]+) s measured phase", problem).group(1))
        self.assertAlmostEqual(phase, measured, delta=0.001)
        self.assertNotIn("Measured time: 0 ns", pub.stdout)
        return pub

    def end_frozen(self, process):
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def test_shm_keep_all_send_that_gives_up_ends_the_phase_at_its_last_send(self):
        name = f"frozen-{os.getpid()}"
        self.addCleanup(self.remove_segment, f"/dev/shm/netprof-{name}")
        # A small ring fills within a few milliseconds of the freeze.
        pub = self.frozen_subscriber(["--shm", name, "--shm-history", "keep-all", "-q", "16384"],
                                     ["--shm", name, "-q", "16384"])
        self.assertIn("the transport failed while sending", " ".join(pub.json["result"]["problems"]))

    def test_zmq_nodrop_send_that_gives_up_ends_the_phase_at_its_last_send(self):
        publisher = f"tcp://127.0.0.1:{free_tcp_port()}"
        # Large messages and a small -q (the HWM and socket buffers) fill within a second.
        sizes = ["-s", "60000", "-q", "65536"]
        self.frozen_subscriber(["--zmq", publisher, "--zmq-nodrop", *sizes],
                               ["--zmq", f"tcp://127.0.0.1:{free_tcp_port()}", "--zmq", publisher,
                                *sizes])

    def remove_segment(self, path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class SendRateShortfallTest(NetprofTestCase):
    def test_a_publisher_that_cannot_keep_up_with_send_hz_says_so_with_both_figures(self):
        # No machine sends 1e9 messages a second: paced at that rate the publisher sends as
        # fast as it can, far short of it however loaded or fast the host.
        run = self.run_netprof("--local-pair", "--send-hz", "1e9", "-t", "0.3", "--warmup-time",
                               "0", json_name="pub", deadline_s=DEADLINE_S)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        [warning] = [w for w in run.json["result"]["warnings"] if w.startswith("sent ")]
        match = SHORTFALL.match(warning)
        self.assertIsNotNone(match, warning)
        figures = run.json["publisher"]
        self.assertEqual(count(match.group(1)), figures["messages_sent"])
        rate = figures["messages_sent"] / figures["measured_seconds"]
        self.assertAlmostEqual(count(match.group(2)), rate, delta=1)
        warnings = run.stdout.split("Warnings:\n", 1)[1].split("Settings:\n", 1)[0]
        self.assertIn("  - " + warning, warnings.splitlines())


@unittest.skipUnless(os.geteuid() == 0, "needs root to mount a tmpfs (CI runs as root)")
class JsonOnAFullFileSystemTest(NetprofTestCase):
    OLD = '{"old": "report"}\n'

    def setUp(self):
        super().setUp()
        self.mount_point = tempfile.mkdtemp(prefix="netprof-full-")
        self.addCleanup(os.rmdir, self.mount_point)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", self.mount_point],
                       check=True, timeout=30)
        self.addCleanup(subprocess.run, ["umount", self.mount_point], check=True, timeout=30)
        self.report = os.path.join(self.mount_point, "report.json")
        with open(self.report, "w") as f:
            f.write(self.OLD)
        os.chmod(self.report, 0o640)

    def fill(self):
        """Fills the file system to the last byte."""
        with open(os.path.join(self.mount_point, "filler"), "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        self.assertEqual(os.statvfs(self.mount_point).f_bavail, 0)

    def run_pair(self):
        # A local pair's report (about 6 KB) is larger than the page the old file frees when
        # truncated, so writing over the old file in place cannot succeed either.
        return self.run_netprof("--local-pair", "-t", "0.2", "--warmup-time", "0", "--quiet",
                                "--json", self.report, deadline_s=DEADLINE_S)

    def test_the_old_report_survives_a_full_disk_and_the_run_exits_3(self):
        self.fill()
        run = self.run_pair()

        self.assertEqual(run.returncode, RUNTIME, run.stderr)
        self.assertEqual(run.stderr.splitlines(), [
            f"netprof: cannot write --json file '{self.report}': writing it failed: No space left "
            "on device; the old file is left as it was"])
        with open(self.report) as f:
            self.assertEqual(f.read(), self.OLD)
        self.assertEqual(os.stat(self.report).st_mode & 0o777, 0o640)
        self.assertEqual(sorted(os.listdir(self.mount_point)), ["filler", "report.json"],
                         "a temporary file was left behind")

    def test_with_room_the_report_replaces_the_old_one_keeping_its_mode(self):
        run = self.run_pair()

        self.assertEqual(run.returncode, 0, run.stderr)
        with open(self.report) as f:
            self.assertEqual(json.load(f)["result"]["status"], "SUCCESS")
        self.assertEqual(os.stat(self.report).st_mode & 0o777, 0o640)
        self.assertEqual(os.listdir(self.mount_point), ["report.json"])


@unittest.skipUnless(os.geteuid() == 0, "needs root to run netprof as another user")
class JsonInADirectoryThatCannotTakeANewFileTest(NetprofTestCase):
    def test_an_existing_report_whose_directory_is_not_writable_is_refused_before_the_run(self):
        # The report replaces the old file by renaming a new one into the directory; the user
        # may write the file but not the directory, so that is refused while parsing, before
        # the run rather than after it.
        directory = tempfile.mkdtemp(prefix="netprof-readonly-dir-")
        self.addCleanup(shutil.rmtree, directory)
        os.chmod(directory, 0o755)
        report = os.path.join(directory, "report.json")
        with open(report, "w") as f:
            f.write("{}\n")
        os.chown(report, NOBODY, NOBODY)

        netprof = self.netprof_anyone_may_run()
        result = subprocess.run([netprof, "-u", "127.0.0.1:1", "--json", report],
                                capture_output=True, text=True, timeout=10,
                                preexec_fn=become_nobody)
        self.assertEqual(result.returncode, USAGE, result.stderr)
        self.assertEqual(result.stderr, f"netprof: invalid value '{report}' for --json: cannot "
                         f"replace it: directory '{directory}' is not writable (Permission "
                         "denied)\n")
        with open(report) as f:
            self.assertEqual(f.read(), "{}\n")


if __name__ == "__main__":
    unittest.main()
