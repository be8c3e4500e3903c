"""End-to-end: real netprof processes over iceoryx 2 (Debian's 2.0.3) through RouDi: a local
pair that uses the RouDi already running, one that starts and stops its own over hostile files
under RouDi's names in /dev/shm, a two-process stream with --iox-queue-full block, and the
refusals, each with one line and its documented exit status: no RouDi for a role process (3),
-s over the largest chunk (2), and RouDi killed mid-run (the run ends with a clear problem).

RouDi is one per host (its socket is /tmp/roudi). A RouDi this file starts gets a small config
of its own (it starts in a second instead of two), is stopped by its PID, and what it leaves
when killed on purpose is removed. The tests that need no RouDi to be running are skipped
when someone else's is.
"""

import grp
import os
import signal
import socket
import subprocess
import time
import unittest

from netprof_test_case import NetprofTestCase

DEADLINE_S = 30
ROUDI_SOCKET = "/tmp/roudi"  # iceoryx 2.0: IOX_UDS_SOCKET_PATH_PREFIX + "roudi"
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30"]
# The largest mempool of the small config: 16 KiB chunks.
SMALL_CONFIG = """[general]
version = 1

[[segment]]

[[segment.mempool]]
size = 256
count = 4000

[[segment.mempool]]
size = 16384
count = 64
"""
# What RouDi makes: its management segment, and a data segment named after the group (with its
# built-in config and ours), its socket and locks.
ROUDI_FILES = ["/dev/shm/iceoryx_mgmt", f"/dev/shm/{grp.getgrgid(os.getegid()).gr_name}",
               ROUDI_SOCKET,
               ROUDI_SOCKET + ".lock", "/tmp/iox-unique-roudi.lock"]


def roudi_answers():
    """Whether something is bound to RouDi's socket, as netprof asks it."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.connect(ROUDI_SOCKET)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def wait_until(condition, deadline_s, what):
    give_up = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"{what} within {deadline_s} s")
        time.sleep(0.01)


class Roudi:
    """An iox-roudi this test started, with the small config, stopped by its PID."""

    def __init__(self, directory):
        config = os.path.join(directory, "roudi.toml")
        with open(config, "w", encoding="utf-8") as file:
            file.write(SMALL_CONFIG)
        self.process = subprocess.Popen(["iox-roudi", "-c", config, "--kill-delay", "2"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until(lambda: roudi_answers() or self.process.poll() is not None, 10,
                       "iox-roudi did not answer")
        except AssertionError:
            self.stop()
            raise
        if self.process.poll() is not None:
            raise AssertionError(f"iox-roudi exited with status {self.process.returncode}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self):
        """SIGKILL, as a crash would; its files stay behind until remove_leftovers()."""
        self.process.kill()
        self.process.wait()

    @staticmethod
    def remove_leftovers():
        for path in ROUDI_FILES:
            if os.path.exists(path):
                os.unlink(path)


class IceoryxTestCase(NetprofTestCase):
    def assert_one_line(self, result, status, *mentions):
        self.assertEqual(result.returncode, status, result.stdout + result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        for mention in mentions:
            self.assertIn(mention, result.stderr)

    def assert_iceoryx_ping_pong_passed(self, result):
        report = self.assert_ping_pong_passed(result, "iceoryx", 300)
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("iceoryx 2.0", notes)
        self.assertIn("DISCARD_OLDEST_DATA", notes)
        self.assertIn("history request 0", notes)


class RunningRoudi:
    """A mixin, before the TestCase: the RouDi already running (someone's), or one started here
    for the class."""

    @classmethod
    def setUpClass(cls):
        cls.roudi = None
        cls.directory = None
        if not roudi_answers():
            import tempfile
            cls.directory = tempfile.TemporaryDirectory(prefix="netprof-e2e-roudi-")
            cls.roudi = Roudi(cls.directory.name)

    @classmethod
    def tearDownClass(cls):
        if cls.roudi:
            cls.roudi.stop()
            cls.directory.cleanup()


class WithARunningRoudi(RunningRoudi, IceoryxTestCase):
    """The RouDi already running (someone's), or one started here for the class."""

    def test_two_publishers_each_on_services_of_their_own(self):
        # Publisher 1's services are netprof/NAME.1/data and netprof/NAME.1/back.
        self.assert_two_publishers_lose_nothing("--iceoryx", "--iox-queue-full", "block",
                                                "--send-hz", "2000", "-t", "1",
                                                deadline_s=DEADLINE_S)

    def test_local_pair_uses_the_running_roudi_and_leaves_it_running(self):
        result = self.run_netprof("--local-pair", "--iceoryx", *PING_PONG, json_name="pair",
                                  deadline_s=DEADLINE_S)
        self.assert_iceoryx_ping_pong_passed(result)
        self.assertTrue(roudi_answers(), "the local pair stopped a RouDi it did not start")

    def test_blocking_stream_between_two_processes_loses_nothing(self):
        name = f"e2e-block-{os.getpid()}"
        common = ["--iceoryx", name, "--iox-queue-full", "block", "-q", "2000"]
        publisher, pub_json = self.start("-i", "0", *common, "-t", "1", "--warmup-time", "0.2",
                                         "--wait", "10", json_name="pub")
        subscriber, sub_json = self.start("-i", "1", *common, "--wait", "10", json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stderr + sub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stderr)
        [summary] = pub.json["subscribers"]
        self.assertGreater(pub.json["publisher"]["messages_sent"], 0)
        self.assertEqual(summary["received"], pub.json["publisher"]["messages_sent"])
        self.assertEqual(summary["lost"], 0)
        notes = " ".join(sub.json["endpoint"]["notes"])
        # -q 2000 over messages of 52 + 128 B (the default -s): 12 of them.
        self.assertIn("queue of 12 messages", notes)
        self.assertIn("WAIT_FOR_CONSUMER", notes)

    def test_a_blocked_publisher_outlives_a_subscriber_killed_mid_run(self):
        name = f"e2e-vanish-{os.getpid()}"
        common = ["--iceoryx", name, "--iox-queue-full", "block", "--wait", "5"]
        publisher, pub_json = self.start("-i", "0", *common, "-t", "2", "--warmup-time", "0.1",
                                         json_name="pub")
        watched = self.start_watched("-i", "1", *common)
        subscriber = watched.process
        runtime_files = [f"/tmp/netprof_{subscriber.pid}_1{end}" for end in ("", ".lock")]
        self.addCleanup(lambda: [os.unlink(f) for f in runtime_files if os.path.exists(f)])
        # Killed once its status line shows measured data: the CPU time both had spent (the
        # test's earlier sign) was reached under ASan before the subscriber had announced
        # itself, and the publisher then reported nobody joining instead.
        self.wait_for_measured_data(watched, publisher=publisher)
        subscriber.kill()
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 1, pub.stdout + pub.stderr)
        problems = " ".join(pub.json["result"]["problems"])
        self.assertIn("subscriber 1 vanished", problems)

    def test_payload_over_the_largest_chunk_is_refused(self):
        result = self.run_netprof("--local-pair", "--iceoryx", "-s", "100000000",
                                  deadline_s=DEADLINE_S)
        self.assert_one_line(result, 2, "-s 100000000 is too large for iceoryx: at most",
                             "[[segment.mempool]]")

    def test_bad_name_is_refused(self):
        result = self.run_netprof("-i", "0", "--iceoryx", "a/b", deadline_s=DEADLINE_S)
        self.assert_one_line(result, 2, "bad --iceoryx value 'a/b'")


@unittest.skipIf(roudi_answers(), "a RouDi is running already (someone else's)")
class WithoutARunningRoudi(IceoryxTestCase):
    def setUp(self):
        super().setUp()
        if roudi_answers():
            self.skipTest("a RouDi is running already (someone else's)")

    def test_role_without_roudi_fails_at_once(self):
        started = time.monotonic()
        result = self.run_netprof("-i", "0", "--iceoryx", "nobody-home", "-t", "1",
                                  deadline_s=DEADLINE_S)
        self.assert_one_line(result, 3, "no iceoryx RouDi is running", "start iox-roudi first")
        self.assertLess(time.monotonic() - started, 5, "it waited for RouDi (iceoryx's minute)")

    def test_local_pair_starts_and_stops_its_own_roudi_over_hostile_files(self):
        # Junk under RouDi's names, as a crash or a stranger leaves them: RouDi replaces them.
        for path in ROUDI_FILES[:2]:
            with open(path, "wb") as file:
                file.write(os.urandom(4096))
        self.addCleanup(Roudi.remove_leftovers)
        result = self.run_netprof("--local-pair", "--iceoryx", *PING_PONG, json_name="own",
                                  deadline_s=DEADLINE_S)
        self.assert_iceoryx_ping_pong_passed(result)
        self.assertFalse(roudi_answers(), "the RouDi the pair started is still running")
        left = [path for path in ROUDI_FILES if os.path.exists(path)]
        self.assertEqual(left, [], "the pair's RouDi left files behind")

    def test_local_pair_whose_roudi_is_killed_says_so_and_cleans_up(self):
        self.addCleanup(Roudi.remove_leftovers)
        pair, _ = self.start("--local-pair", "--iceoryx", "-t", "10", "--send-hz", "1000")
        children = []

        def publisher_registered():
            children[:] = subprocess.run(["pgrep", "-P", str(pair.pid)], capture_output=True,
                                         text=True).stdout.split()
            return any(os.path.exists(f"/tmp/netprof_{child}_1") for child in children)

        wait_until(publisher_registered, 10, "the pair's publisher did not register")
        [roudi] = [c for c in children if open(f"/proc/{c}/comm").read().strip() == "iox-roudi"]
        started = time.monotonic()
        os.kill(int(roudi), signal.SIGKILL)
        result = self.finish(pair, None, DEADLINE_S)
        self.assertLess(time.monotonic() - started, 8, "the run went on without RouDi")
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the iox-roudi this run started (PID {roudi}) was killed by signal 9",
                      result.stderr)
        left = [path for path in ROUDI_FILES if os.path.exists(path)]
        self.assertEqual(left, [], "the killed RouDi's files were left behind")

    def test_roudi_killed_mid_run_ends_the_run_with_a_clear_message(self):
        roudi = Roudi(self._tmp.name)
        self.addCleanup(Roudi.remove_leftovers)
        self.addCleanup(roudi.stop)
        name = f"e2e-killed-{os.getpid()}"
        publisher, pub_json = self.start("-i", "0", "--iceoryx", name, "-t", "10", "--wait",
                                         "10", "--send-hz", "1000", json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "--iceoryx", name, "--wait", "10",
                                          json_name="sub")
        # Both registering or registered with RouDi: each runtime's socket is /tmp/netprof_PID_1
        # (left behind by a process that RouDi's death ends while it registers).
        runtime_files = [f"/tmp/netprof_{p.pid}_1{end}" for p in (publisher, subscriber)
                         for end in ("", ".lock")]
        self.addCleanup(lambda: [os.unlink(f) for f in runtime_files if os.path.exists(f)])
        wait_until(lambda: all(os.path.exists(f"/tmp/netprof_{p.pid}_1")
                               for p in (publisher, subscriber)), 10, "netprof did not register")
        started = time.monotonic()
        roudi.kill()
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertLess(time.monotonic() - started, 8, "the run went on without RouDi")
        for result in (pub, sub):
            # A failed run (3), whatever phase RouDi died in: registering or making its ports
            # (one line), or running (the report's problems say so).
            said = result.stdout + result.stderr
            self.assertEqual(result.returncode, 3, said)
            self.assertIn("RouDi stopped answering", said)


if __name__ == "__main__":
    unittest.main()
