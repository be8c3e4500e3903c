"""End-to-end: what another process or user may leave or do under a shared-memory segment's
name, against real netprof processes. /dev/shm is writable by every user, so anyone can put a
FIFO, a link or a segment of their own where netprof looks, or truncate a segment in use.

Each refusal is one line on stderr, exit 3, and comes at once (well before --wait). Tests that
hand a file to another user (uid 65534) or run netprof as that user need root and skip without
it. Every file made here is removed when its test ends, whatever happened.
"""

import os
import re
import struct
import time
import unittest

from netprof_test_case import NOBODY
from test_shm import ShmTestCase

RUNTIME = 3
# --wait for every process here: a refusal must come long before it.
WAIT = "20"
PROMPT_S = 5  # "at once", on a loaded 2-core machine
SEGMENT_MAGIC = 0x314d48534652504e  # "NPRFSHM1"


def needs_root(test):
    return unittest.skipUnless(os.geteuid() == 0, "needs root: hands a file to uid 65534")(test)


def fake_segment(path, owner_pid):
    """A file with a valid, ready segment header naming `owner_pid`, and nothing behind it."""
    header = struct.pack("<QIIQQQQQIIiIQ", SEGMENT_MAGIC, 1, 128, 8192, 4096, 4096, 0, 0, 64,
                         1, owner_pid, 1, 0x5eed)
    with open(path, "wb") as f:
        f.write(header.ljust(128, b"\0").ljust(8192, b"\0"))
    os.chmod(path, 0o600)


class HostileShmTestCase(ShmTestCase):
    def run_timed(self, *args, json_name="refused", deadline_s=15):
        """Runs one netprof; (result, seconds it took)."""
        start = time.monotonic()
        process, path = self.start(*args, json_name=json_name)
        result = self.finish(process, path, deadline_s=deadline_s)
        return result, time.monotonic() - start

    def assert_refused_at_once(self, result, seconds, pattern, status=RUNTIME):
        """Exit 3, one line on stderr matching `pattern`, nothing on stdout, no --json file,
        well before --wait."""
        self.assertEqual(result.returncode, status, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertIsNone(result.json)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertRegex(lines[0], "^netprof: " + pattern + "$")
        self.assertLess(seconds, PROMPT_S, f"took {seconds:.1f} s, not refused at once")


class FifoTest(HostileShmTestCase):
    """A FIFO under the name: opening it for reading used to block until someone wrote."""

    def fifo(self):
        name, path = self.segment()
        os.mkfifo(path, 0o600)
        return name, path

    def test_fifo_at_the_publishers_name_is_refused_at_once(self):
        name, path = self.fifo()
        result, seconds = self.run_timed("-i", "0", "--shm", name, "--wait", WAIT)
        self.assert_refused_at_once(
            result, seconds, re.escape(f"{path} is a FIFO owned by ") + ".+" + re.escape(
                ", not a shared-memory segment: netprof will not use it (remove it, or choose "
                "another --shm NAME)"))
        self.assertTrue(os.path.exists(path), "a FIFO is not netprof's to remove")

    def test_fifo_at_the_subscribers_name_is_refused_rather_than_waited_on(self):
        name, path = self.fifo()
        result, seconds = self.run_timed("-i", "1", "--shm", name, "--wait", WAIT)
        self.assert_refused_at_once(result, seconds,
                                    re.escape(f"{path} is a FIFO owned by ") + ".+")

    def test_fifo_named_like_a_local_pairs_segment_does_not_stop_local_pairs(self):
        # A pair names its segment pair-PID-RANDOM, which nobody can guess, but before it
        # starts it looks at every /dev/shm/netprof-pair-* to remove those of pairs that were
        # killed: that look used to open the FIFO and hang every --local-pair --shm on the host.
        path = f"/dev/shm/netprof-pair-{os.getpid()}-squatted"
        os.mkfifo(path, 0o600)
        self.addCleanup(self._remove, path)
        result, _ = self.run_timed("--local-pair", "--shm", "--send-hz", "2000", "-t", "1",
                                   "--warmup-time", "0.2", json_name=None, deadline_s=30)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(result.stdout.startswith("Test: SUCCESS"), result.stdout)
        self.assertTrue(os.path.exists(path), "a FIFO is not netprof's to remove")

    def test_fifo_at_the_name_given_to_a_local_pair_fails_it_at_once(self):
        name, path = self.fifo()
        result, seconds = self.run_timed("--local-pair", "--shm", name, "--wait", WAIT)
        self.assertEqual(result.returncode, RUNTIME, result.stdout + result.stderr)
        self.assertIn(f"netprof: {path} is a FIFO owned by ", result.stderr)
        self.assertLess(seconds, PROMPT_S)


class ForeignSegmentTest(HostileShmTestCase):
    @needs_root
    def test_another_users_segment_naming_pid_1_is_refused_by_a_root_publisher(self):
        # The squatter's header says PID 1, which is always alive: trusting it, a publisher
        # could never use the name ("in use by PID 1"). Root, too, refuses it by its owner.
        name, path = self.segment()
        fake_segment(path, owner_pid=1)
        os.chown(path, NOBODY, NOBODY)
        result, seconds = self.run_timed("-i", "0", "--shm", name, "--wait", WAIT)
        # uid 65534 is "nobody" on Debian; the name may differ elsewhere.
        self.assert_refused_at_once(
            result, seconds, re.escape(f"{path} belongs to another user, ") +
            r"(\S+ \(uid 65534\)|uid 65534)" + re.escape(
                ": netprof does not use another user's segment (remove it, choose another "
                "--shm NAME, or trust that user with --shm-allow-user ") + r"\S+\)")
        self.assertTrue(os.path.exists(path), "another user's file is not netprof's to remove")

    @needs_root
    def test_subscriber_refuses_another_users_segment_unless_told_to_use_it(self):
        # A real publisher, whose segment is then given to uid 65534: to a subscriber it is
        # another user's, which could feed it anything.
        name, path = self.segment()
        publisher, pub_json = self.start("-i", "0", "--shm", name, "--wait", WAIT,
                                         "--send-hz", "2000", "-t", "1", "--warmup-time", "0.2",
                                         json_name="publisher")
        self.wait_for_segment(path, publisher)
        os.chown(path, NOBODY, NOBODY)

        refused, seconds = self.run_timed("-i", "1", "--shm", name, "--wait", WAIT)
        self.assert_refused_at_once(refused, seconds,
                                    re.escape(f"{path} belongs to another user, ") + ".+")

        allowed, _ = self.run_timed("-i", "1", "--shm", name, "--wait", WAIT,
                                    "--shm-allow-user", str(NOBODY), json_name=None,
                                    deadline_s=40)
        self.assertEqual(allowed.returncode, 0, allowed.stdout + allowed.stderr)
        self.assertTrue(allowed.stdout.startswith("Test: SUCCESS"), allowed.stdout)
        pub = self.finish(publisher, pub_json, deadline_s=40)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)

    @needs_root
    def test_permission_denied_says_so_and_names_the_owner_and_mode(self):
        # Was: "no publisher was heard within --wait", after waiting all of it.
        name, path = self.segment()
        fake_segment(path, owner_pid=os.getpid())  # root's, 0600
        start = time.monotonic()
        process, _ = self.start_as_nobody("-i", "1", "--shm", name, "--wait", WAIT)
        result = self.finish(process, deadline_s=15)
        self.assert_refused_at_once(result, time.monotonic() - start, re.escape(
            f"permission denied opening {path}: it belongs to root (uid 0), mode 0600"))

    def test_shm_allow_user_naming_nobody_is_a_usage_error(self):
        name, _ = self.segment()
        for value, reason in (("no-such-user-netprof", "no user has that name (give a user "
                                                        "name or a numeric uid)"),
                              ("4294967295", "a uid is at most 4294967294")):
            with self.subTest(value=value):
                result, seconds = self.run_timed("-i", "1", "--shm", name,
                                                 "--shm-allow-user", value)
                self.assert_refused_at_once(result, seconds, re.escape(
                    f"bad --shm-allow-user value '{value}': {reason}"), status=2)


class TruncatedSegmentTest(HostileShmTestCase):
    """Anyone who may write the segment can truncate it under a running process; each access
    past the new end raised SIGBUS, which killed publisher and subscriber without a report."""

    def wait_for_a_subscriber(self, path, processes, deadline_s=10):
        """Until a subscriber's slot is ready (the slot table's `ready` mask, at byte 136)."""
        deadline = time.monotonic() + deadline_s
        while True:
            with open(path, "rb") as f:
                f.seek(136)
                if struct.unpack("<Q", f.read(8))[0] != 0:
                    return
            for process in processes:
                self.assertIsNone(process.poll(), "netprof exited before the subscriber joined")
            self.assertLess(time.monotonic(), deadline, "the subscriber never joined")
            time.sleep(0.02)

    def truncate_mid_run(self, history, size):
        name, path = self.segment()
        publisher, pub_json = self.start("-i", "0", "--shm", name, "--shm-history", history,
                                         "--wait", WAIT, "-t", "30", "--send-hz", "2000",
                                         "--warmup-time", "0.2", json_name=f"pub-{history}")
        subscriber, sub_json = self.start("-i", "1", "--shm", name, "--wait", WAIT,
                                          json_name=f"sub-{history}")
        self.wait_for_segment(path, publisher)
        self.wait_for_a_subscriber(path, (publisher, subscriber))
        time.sleep(0.5)  # into the measured phase
        os.truncate(path, size)
        for role, process, json_path in (("publisher", publisher, pub_json),
                                         ("subscriber", subscriber, sub_json)):
            result = self.finish(process, json_path, deadline_s=20)
            with self.subTest(role=role):
                self.assertNotIn(result.returncode, (-7, 135), f"the {role} died of SIGBUS")
                self.assertEqual(result.returncode, RUNTIME, result.stdout + result.stderr)
                self.assertIn(f"netprof: the shared-memory segment {path} was truncated while "
                              f"in use (now {size} B, mapped ", result.stderr)
                self.assertTrue(result.stdout.startswith("Test: FAIL"), result.stdout)
                self.assertIsNotNone(result.json, f"the {role} wrote no report")
                self.assertEqual(result.json["result"]["status"], "FAIL")
                notes = " ".join(result.json["endpoint"]["notes"])
                self.assertIn("gave up: the shared-memory segment", notes)

    def test_truncated_to_nothing_mid_run_keep_last(self):
        self.truncate_mid_run("keep-last", 0)

    def test_truncated_to_its_first_page_mid_run_keep_all(self):
        self.truncate_mid_run("keep-all", 4096)


if __name__ == "__main__":
    unittest.main()
