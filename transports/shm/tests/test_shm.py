"""End-to-end: real publisher and subscriber processes over the shared-memory ring (--shm).

Every test uses its own segment name and removes /dev/shm/netprof-NAME by name when it ends,
whatever happened; the harness kills every process it started.
"""

import glob
import itertools
import os
import signal
import struct
import time
import unittest

from netprof_test_case import NetprofTestCase

# A modest rate that a loaded 2-core machine carries without loss.
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
_names = itertools.count()


class ShmTestCase(NetprofTestCase):
    def segment(self):
        """A fresh segment name and its file, removed when the test ends."""
        name = f"e2e-{os.getpid()}-{next(_names)}"
        path = f"/dev/shm/netprof-{name}"
        self.addCleanup(self._remove, path)
        return name, path

    @staticmethod
    def _remove(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    def wait_for_segment(self, path, process, deadline_s=10):
        """Waits until the publisher's segment is ready (its header's state word, at byte 68,
        is 1), not merely created: a publisher killed half-way through initialising leaves an
        invalid segment, which is a different case."""
        deadline = time.monotonic() + deadline_s
        while not self._ready(path):
            self.assertIsNone(process.poll(), "netprof exited before its segment was ready")
            self.assertLess(time.monotonic(), deadline, f"{path} never became ready")
            time.sleep(0.02)

    @staticmethod
    def _ready(path):
        try:
            with open(path, "rb") as f:
                header = f.read(72)
        except FileNotFoundError:
            return False
        return (len(header) == 72 and header[:8] == b"NPRFSHM1"
                and struct.unpack_from("<I", header, 68)[0] == 1)

    def assert_clean_run(self, publisher_report, subscribers):
        self.assertEqual(publisher_report["result"]["status"], "SUCCESS",
                         publisher_report["result"])
        publisher = publisher_report["publisher"]
        self.assertGreater(publisher["messages_sent"], 0)
        self.assertGreater(publisher["probes_sent"], 0)
        self.assertEqual(len(publisher_report["subscribers"]), subscribers)
        for subscriber in publisher_report["subscribers"]:
            self.assertEqual(subscriber["received"], publisher["messages_sent"])
            self.assertEqual(subscriber["lost"], 0)
        self.assertEqual(publisher["echoes_received"], subscribers * publisher["probes_sent"])
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])


class LocalPairTest(ShmTestCase):
    def test_local_pair_in_both_history_modes(self):
        for history in ("keep-last", "keep-all"):
            with self.subTest(history=history):
                result = self.run_netprof("--local-pair", "--shm", "--shm-history", history,
                                          *MODEST, json_name=f"pair-{history}")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertTrue(result.stdout.startswith("Test: SUCCESS"), result.stdout)
                self.assert_clean_run(result.json, 1)
                endpoint = result.json["endpoint"]
                self.assertEqual(endpoint["transport"], "shm")
                notes = " ".join(endpoint["notes"])
                self.assertIn(f"history {history}", notes)
                self.assertIn("futex", notes)
                # The pair's unique segment is gone once it is over.
                [path] = endpoint["local_addresses"]
                self.assertFalse(os.path.exists(path), f"{path} was left behind")

    def test_payload_larger_than_half_the_ring_is_refused_clearly(self):
        result = self.run_netprof("--local-pair", "--shm", "-q", "65536", "-s", "40000",
                                  "--count", "10", deadline_s=30)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("too large for shm", result.stderr)


class ThreeSubscribersTest(ShmTestCase):
    def run_three(self, history):
        name, path = self.segment()
        # The subscribers start first, before the segment exists: they keep trying to attach.
        subscribers = [self.start("-i", str(i), "--shm", name, "--wait", "20",
                                  json_name=f"sub{i}-{history}")
                       for i in (1, 2, 3)]
        publisher, pub_json = self.start("-i", "0", "--shm", name, "--shm-history", history,
                                         "--subscribers", "3", "--wait", "20", *MODEST,
                                         json_name=f"pub-{history}")
        pub = self.finish(publisher, pub_json)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assert_clean_run(pub.json, 3)
        for process, sub_json in subscribers:
            sub = self.finish(process, sub_json)
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
            self.assertTrue(sub.json["subscriber"]["end_received"])
            self.assertEqual(sub.json["subscriber"]["received"],
                             pub.json["publisher"]["messages_sent"])
            self.assertEqual(sub.json["run_id"], pub.json["run_id"])
        self.assertFalse(os.path.exists(path), "the publisher left its segment behind")

    def test_three_subscribers_keep_last(self):
        self.run_three("keep-last")

    def test_three_subscribers_keep_all(self):
        self.run_three("keep-all")


class LifecycleTest(ShmTestCase):
    def test_segment_of_a_killed_publisher_is_replaced_by_the_next_run(self):
        name, path = self.segment()
        crashed, _ = self.start("-i", "0", "--shm", name, "--wait", "30")
        self.wait_for_segment(path, crashed)
        crashed.send_signal(signal.SIGKILL)
        crashed.wait(timeout=10)
        self.assertTrue(os.path.exists(path), "SIGKILL cannot have removed the segment")

        result = self.run_netprof("--local-pair", "--shm", name, *MODEST, json_name="recovered")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assert_clean_run(result.json, 1)
        notes = " ".join(result.json["endpoint"]["notes"])
        self.assertIn(f"replaced a stale segment left by PID {crashed.pid}", notes)
        self.assertFalse(os.path.exists(path))

    def test_live_segment_is_not_taken_over(self):
        name, path = self.segment()
        owner, _ = self.start("-i", "0", "--shm", name, "--wait", "30")
        self.wait_for_segment(path, owner)
        result = self.run_netprof("-i", "0", "--shm", name, "--wait", "1", deadline_s=20)
        self.assertEqual(result.returncode, 3)
        self.assertIn(f"is in use by PID {owner.pid}", result.stderr)
        self.assertTrue(os.path.exists(path), "the refused publisher removed the live segment")

    def test_sigint_unlinks_the_segment(self):
        name, path = self.segment()
        publisher, _ = self.start("-i", "0", "--shm", name, "--wait", "30")
        self.wait_for_segment(path, publisher)
        self.interrupt(publisher)
        result = self.finish(publisher, deadline_s=20)
        self.assertEqual(result.returncode, 130, result.stdout + result.stderr)
        self.assertFalse(os.path.exists(path), "SIGINT left the segment behind")

    def signal_publisher(self, signum, wait_s):
        """Sends `signum` to a publisher waiting for subscribers; returns its exit and whether
        its segment is gone."""
        name, path = self.segment()
        publisher, _ = self.start("-i", "0", "--shm", name, "--wait", str(wait_s))
        self.wait_for_segment(path, publisher)
        publisher.send_signal(signum)
        result = self.finish(publisher, deadline_s=20)
        return result, not os.path.exists(path)

    def test_sighup_unlinks_the_segment(self):
        # The terminal closing: by default SIGHUP would kill the publisher where it stands.
        result, removed = self.signal_publisher(signal.SIGHUP, 30)
        self.assertEqual(result.returncode, 130, result.stdout + result.stderr)
        self.assertTrue(removed, "SIGHUP left the segment behind")

    def test_sigpipe_does_not_end_the_run_before_it_removes_the_segment(self):
        # What `netprof ... | head` sends when head has gone: the run must still clean up.
        result, removed = self.signal_publisher(signal.SIGPIPE, 1)
        self.assertEqual(result.returncode, 3, "no subscriber came: exit 3, not death by SIGPIPE")
        self.assertTrue(removed, "SIGPIPE left the segment behind")

    def start_pair_in_own_group(self):
        """A 30 s local pair leading its own process group, once its segment is ready; returns
        (process, segment path pattern). Its segment is removed when the test ends."""
        pair, _ = self.start("--local-pair", "--shm", "-t", "30", "--quiet", own_group=True)
        pattern = f"/dev/shm/netprof-pair-{pair.pid}-*"
        self.addCleanup(lambda: [self._remove(path) for path in glob.glob(pattern)])
        deadline = time.monotonic() + 10
        while not (paths := glob.glob(pattern)) or not self._ready(paths[0]):
            self.assertIsNone(pair.poll(), "the local pair exited before its segment was ready")
            self.assertLess(time.monotonic(), deadline, f"no ready {pattern} appeared")
            time.sleep(0.02)
        return pair, pattern

    def test_sigterm_to_a_local_pairs_whole_group_unlinks_the_segment(self):
        # What `timeout` and `kill -- -PGID` do: each child gets the signal from the sender and
        # again from its parent, which forwards it. The second used to kill the publisher child.
        pair, pattern = self.start_pair_in_own_group()
        time.sleep(0.3)  # into the run; the outcome is asserted, not timing
        os.killpg(pair.pid, signal.SIGTERM)
        result = self.finish(pair, deadline_s=20)
        self.assertEqual(result.returncode, 130, result.stdout + result.stderr)
        self.assertEqual(glob.glob(pattern), [], "a signalled local pair left its segment behind")

    def test_next_local_pair_removes_the_segment_of_one_killed_outright(self):
        # SIGKILL leaves the segment; its name is never used again, so no publisher would ever
        # find and replace it.
        killed, pattern = self.start_pair_in_own_group()
        path = glob.glob(pattern)[0]
        with open(path, "rb") as f:
            owner = struct.unpack_from("<i", f.read(72), 64)[0]
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(timeout=10)
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{owner}"):  # the orphaned publisher, until it is reaped
            self.assertLess(time.monotonic(), deadline, f"PID {owner} outlived SIGKILL")
            time.sleep(0.02)
        if not os.path.exists(path):
            # Another test's shm local pair, run alongside, found the owner dead and removed it
            # first: what this test asks of any local pair.
            return
        result = self.run_netprof("--local-pair", "--shm", "-t", "0.2", "--warmup-time", "0.1",
                                  "--quiet", deadline_s=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse(os.path.exists(path), "the abandoned segment is still there")
        # Any shm local pair removes it (another test's, run alongside, may come first); when
        # this one did, it says so.
        removed_lines = [line for line in result.stderr.splitlines() if "removed " in line]
        for line in removed_lines:
            self.assertRegex(line, r"^netprof: removed /dev/shm/netprof-pair-\S+, left by a "
                                   r"local pair that was killed$")

    def test_subscriber_that_joins_after_the_publisher(self):
        name, path = self.segment()
        publisher, pub_json = self.start("-i", "0", "--shm", name, "--wait", "20", *MODEST,
                                         json_name="early-pub")
        self.wait_for_segment(path, publisher)
        time.sleep(0.3)  # the publisher is already waiting; the outcome is asserted, not timing
        subscriber, sub_json = self.start("-i", "1", "--shm", name, json_name="late-sub")
        pub = self.finish(publisher, pub_json)
        sub = self.finish(subscriber, sub_json)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assert_clean_run(pub.json, 1)


if __name__ == "__main__":
    unittest.main()
