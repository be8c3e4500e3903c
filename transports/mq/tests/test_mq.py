"""End-to-end: real netprof processes over POSIX message queues (--mq, issue 20).

A local pair in both modes, two subscribers each with its own latency, the bad input of
docs/hostile-input.md ("POSIX message queues"), and queues removed after a run and after a
killed pair. Queues cannot be listed without /dev/mqueue, so the tests look them up by name
(ctypes over librt) and remove by name whatever a test made, with its marker in /dev/shm.
"""

import ctypes
import errno
import fcntl
import glob
import itertools
import os
import re
import resource
import signal
import subprocess
import sys
import time
import unittest

from netprof_test_case import NETPROF, NetprofTestCase, become_nobody

USAGE = 2
RUNTIME = 3
HEADER = 52
# A modest rate that a loaded 2-core machine carries without loss.
MODEST = ["--send-hz", "2000", "-t", "0.5", "--warmup-time", "0.1"]
_names = itertools.count()

_rt = ctypes.CDLL("librt.so.1", use_errno=True)
O_RDONLY, O_WRONLY, O_NONBLOCK = os.O_RDONLY, os.O_WRONLY, os.O_NONBLOCK


def mqueue_limit(name):
    with open(f"/proc/sys/fs/mqueue/{name}") as f:
        return int(f.read())


def open_queue(name, flags):
    """A descriptor of queue `name`, or -errno."""
    fd = _rt.mq_open(name.encode(), ctypes.c_int(flags))
    return fd if fd >= 0 else -ctypes.get_errno()


def queue_exists(name):
    fd = open_queue(name, O_RDONLY | O_NONBLOCK)
    if fd >= 0:
        os.close(fd)
        return True
    return False


def queue_is_held(name):
    """True while a live process holds the queue's lock, as netprof's creator does."""
    fd = open_queue(name, O_RDONLY | O_NONBLOCK)
    if fd < 0:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def send_to_queue(name, data, priority=0):
    """Writes into a queue as a stranger would: 0, or the errno of mq_send."""
    fd = open_queue(name, O_WRONLY | O_NONBLOCK)
    if fd < 0:
        return -fd
    try:
        sent = _rt.mq_send(fd, ctypes.c_char_p(data), ctypes.c_size_t(len(data)),
                           ctypes.c_uint(priority))
        return 0 if sent == 0 else ctypes.get_errno()
    finally:
        os.close(fd)


def remove_queue(name):
    _rt.mq_unlink(name.encode())
    try:
        os.unlink("/dev/shm/.mq-" + name[1:])
    except FileNotFoundError:
        pass


class MqTestCase(NetprofTestCase):
    def run_name(self, subscribers=2):
        """A fresh --mq NAME; its queues (publisher's and subscribers 1..N) are removed when
        the test ends, whatever happened."""
        name = f"e2e-{os.getpid()}-{next(_names)}"
        for queue in [f"/netprof-{name}"] + [f"/netprof-{name}:{i}"
                                            for i in range(1, subscribers + 1)]:
            self.addCleanup(remove_queue, queue)
        return name

    def wait_for_queue(self, queue, process, deadline_s=10):
        deadline = time.monotonic() + deadline_s
        while not queue_exists(queue):
            self.assertIsNone(process.poll(), f"netprof exited before {queue} existed")
            self.assertLess(time.monotonic(), deadline, f"{queue} never appeared")
            time.sleep(0.01)

    def assert_clean(self, report, subscribers):
        self.assertEqual(report["result"]["status"], "SUCCESS", report["result"])
        publisher = report["publisher"]
        self.assertEqual(len(report["subscribers"]), subscribers)
        for subscriber in report["subscribers"]:
            self.assertEqual(subscriber["received"], publisher["messages_sent"])
            self.assertEqual(subscriber["lost"], 0)
            self.assertGreater(subscriber["latency"]["rtt_ns"]["count"], 0)
        self.assertEqual(publisher["echoes_received"], subscribers * publisher["probes_sent"])
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])

    def assert_gone(self, report):
        endpoint = report["endpoint"]
        for queue in endpoint["local_addresses"] + endpoint["peer_addresses"]:
            self.assertFalse(queue_exists(queue), f"{queue} was left behind")
            self.assertFalse(os.path.exists("/dev/shm/.mq-" + queue[1:]))


class RunTest(MqTestCase):
    def test_local_pair_in_both_modes_reports_the_limits_and_removes_its_queues(self):
        for mode in ("stream", "ping-pong"):
            with self.subTest(mode=mode):
                result = self.run_netprof("--local-pair", "--mq", "--mode", mode, *MODEST,
                                          json_name=f"pair-{mode}")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assert_clean(result.json, 1)
                notes = " ".join(result.json["endpoint"]["notes"])
                for limit in ("msg_max", "msgsize_max", "queues_max"):
                    value = mqueue_limit(limit)
                    self.assertIn(f"fs.mqueue.{limit} {value}", notes)
                self.assertIn("queue depth 10 messages", notes)
                self.assertIn("RLIMIT_MSGQUEUE", notes)
                self.assert_gone(result.json)

    def test_two_subscribers_each_with_its_own_latency(self):
        name = self.run_name()
        subscribers = [self.start("-i", str(i), "--mq", name, json_name=f"sub{i}")
                       for i in (1, 2)]
        publisher, pub_json = self.start("-i", "0", "--mq", name, "--subscribers", "2",
                                         *MODEST, json_name="pub")
        pub = self.finish(publisher, pub_json)
        subs = [self.finish(process, path) for process, path in subscribers]
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assert_clean(pub.json, 2)
        self.assertEqual(sorted(pub.json["endpoint"]["peer_addresses"]),
                         [f"/netprof-{name}:1", f"/netprof-{name}:2"])
        for report in [pub.json] + [sub.json for sub in subs]:
            self.assert_gone(report)

    def test_strangers_messages_do_not_skew_the_run(self):
        # A stranger of the same user can write to every queue: garbage, a frame naming a
        # subscriber that does not exist, messages at a priority that jumps the queue. Nothing
        # is larger than a queue's message size: the kernel refuses that to the writer.
        name = self.run_name(1)
        subscriber, sub_json = self.start("-i", "1", "--mq", name, json_name="sub")
        publisher, pub_json = self.start("-i", "0", "--mq", name, *MODEST, json_name="pub")
        own, theirs = f"/netprof-{name}", f"/netprof-{name}:1"
        self.wait_for_queue(own, publisher)
        self.wait_for_queue(theirs, subscriber)
        self.assertEqual(send_to_queue(theirs, b"x" * (mqueue_limit("msgsize_max") + 1)),
                         errno.EMSGSIZE)
        for queue in (own, theirs):
            self.assertEqual(send_to_queue(queue, b"\xff" * 3), 0)
            self.assertEqual(send_to_queue(queue, b"npmq\x07\x00\x00\x00" + b"\0" * 60), 0)
            self.assertEqual(send_to_queue(queue, b"jump the queue", priority=7), 0)
        pub = self.finish(publisher, pub_json)
        sub = self.finish(subscriber, sub_json)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assert_clean(pub.json, 1)
        self.assertIn(f"2 message(s) on {own} were not netprof's (no frame, or a priority "
                      "other than 0): dropped", pub.json["endpoint"]["notes"])
        self.assertIn(f"1 message(s) on {theirs} sent with a priority other than 0, not by "
                      "netprof: dropped", sub.json["endpoint"]["notes"])


class BadInputTest(MqTestCase):
    def test_payload_beyond_msgsize_max_names_the_sysctl_and_the_largest_size(self):
        largest = mqueue_limit("msgsize_max") - HEADER
        result = self.run_netprof("--local-pair", "--mq", "-s", str(largest + 1), "-t", "0.3")
        self.assertEqual(result.returncode, USAGE, result.stderr)
        self.assertEqual(result.stderr.splitlines()[-1],
                         f"netprof: -s {largest + 1} is too large for mq: at most {largest} B "
                         f"of payload per message (fs.mqueue.msgsize_max is {largest + HEADER} "
                         "B, header included; raise it for larger messages: sysctl -w "
                         "fs.mqueue.msgsize_max=BYTES)")

    def test_depth_beyond_the_hard_limit_is_refused(self):
        result = self.run_netprof("-i", "0", "--mq", self.run_name(0), "--mq-depth", "65537")
        self.assertEqual(result.returncode, USAGE)
        self.assertEqual(result.stderr, "netprof: invalid value '65537' for --mq-depth: "
                         "expected a whole number from 1 to 65536\n")

    def test_queue_bytes_the_kernel_refuses_name_rlimit_msgqueue(self):
        def small_budget():
            resource.setrlimit(resource.RLIMIT_MSGQUEUE, (1000, 1000))

        name = self.run_name(0)
        result = subprocess.run([NETPROF, "-i", "0", "--mq", name], capture_output=True,
                                text=True, timeout=20, preexec_fn=small_budget)
        self.assertEqual(result.returncode, RUNTIME, result.stderr)
        self.assertRegex(result.stderr, r"^netprof: the kernel refused to create message queue "
                         + re.escape(f"/netprof-{name}") + r" \(10 messages of \d+ B\): it "
                         r"would take about \d+ B of RLIMIT_MSGQUEUE \(ulimit -q, 1000 B\), "
                         r".*give a smaller --mq-depth or raise ulimit -q\n$")

    def test_depth_beyond_msg_max_without_cap_sys_resource(self):
        msg_max = mqueue_limit("msg_max")
        if msg_max >= 65536:
            self.skipTest("fs.mqueue.msg_max is at the hard limit")
        netprof = self.netprof_anyone_may_run()
        result = subprocess.run([netprof, "-i", "0", "--mq", self.run_name(0), "--mq-depth",
                                 str(msg_max + 1)], capture_output=True, text=True, timeout=20,
                                preexec_fn=become_nobody)
        self.assertEqual(result.returncode, USAGE, result.stderr)
        self.assertEqual(result.stderr, f"netprof: --mq-depth {msg_max + 1} is deeper than the "
                         f"kernel allows this process: fs.mqueue.msg_max is {msg_max} without "
                         "CAP_SYS_RESOURCE (raise it with sysctl -w fs.mqueue.msg_max="
                         f"{msg_max + 1}, or give --mq-depth {msg_max} or less)\n")

    @unittest.skipUnless(os.geteuid() == 0, "needs root to make a queue as uid 65534")
    def test_another_users_queue_at_the_name_is_refused_naming_its_owner(self):
        name = self.run_name(0)
        queue = f"/netprof-{name}"
        make = ("import ctypes, os, sys; os.setgroups([]); os.setgid(65534); os.setuid(65534); "
                "rt = ctypes.CDLL('librt.so.1', use_errno=True); "
                "sys.exit(0 if rt.mq_open(sys.argv[1].encode(), ctypes.c_int(os.O_CREAT | "
                "os.O_RDONLY), ctypes.c_uint(0o600), None) >= 0 else 1)")
        subprocess.run([sys.executable, "-c", make, queue], check=True, timeout=20)
        started = time.monotonic()
        result = self.run_netprof("-i", "0", "--mq", name, "--wait", "20")
        self.assertEqual(result.returncode, RUNTIME, result.stderr)
        self.assertRegex(result.stderr, "^netprof: message queue " + re.escape(queue) +
                         r" belongs to another user, (\S+ \(uid 65534\)|uid 65534): netprof does "
                         r"not use another user's queue \(choose another --mq NAME\)\n$")
        self.assertLess(time.monotonic() - started, 5, "refused at once, not after --wait")
        self.assertTrue(queue_exists(queue), "another user's queue is not netprof's to remove")

    def test_second_publisher_on_a_name_in_use_is_refused(self):
        name = self.run_name(0)
        first, _ = self.start("-i", "0", "--mq", name, "--wait", "20")
        self.wait_for_queue(f"/netprof-{name}", first)
        second = self.run_netprof("-i", "0", "--mq", name, "--wait", "20", deadline_s=10)
        self.assertEqual(second.returncode, RUNTIME, second.stderr)
        self.assertEqual(second.stderr, f"netprof: message queue /netprof-{name} is in use by a "
                         f"live process: another publisher runs with --mq {name} (choose "
                         "another NAME)\n")
        self.assertIsNone(first.poll(), "the first publisher's queue was taken from it")


class KilledPairTest(MqTestCase):
    def test_next_local_pair_removes_the_queues_of_one_killed_outright(self):
        killed, _ = self.start("--local-pair", "--mq", "-t", "30", "--quiet", own_group=True)
        pattern = f"/dev/shm/.mq-netprof-pair-{killed.pid}-*"
        deadline = time.monotonic() + 10
        while len(markers := glob.glob(pattern)) < 2:
            self.assertIsNone(killed.poll(), "the local pair exited before its queues existed")
            self.assertLess(time.monotonic(), deadline, f"no two {pattern} appeared")
            time.sleep(0.02)
        queues = ["/" + os.path.basename(marker)[len(".mq-"):] for marker in markers]
        for queue in queues:
            self.addCleanup(remove_queue, queue)
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(timeout=10)
        # The pair's children die a moment after their parent; their locks go with them.
        deadline = time.monotonic() + 10
        while any(map(queue_is_held, queues)):
            self.assertLess(time.monotonic(), deadline, "a killed child still holds its queue")
            time.sleep(0.02)
        self.assertTrue(all(queue_exists(queue) for queue in queues), "SIGKILL removes nothing")

        result = self.run_netprof("--local-pair", "--mq", "-t", "0.2", "--warmup-time", "0.1",
                                  "--quiet", json_name="next")
        self.assertEqual(result.returncode, 0, result.stderr)
        for queue in queues:
            self.assertFalse(queue_exists(queue), f"{queue} is still there")
            self.assertFalse(os.path.exists("/dev/shm/.mq-" + queue[1:]))
        for line in result.stderr.splitlines():
            self.assertRegex(line, r"^netprof: removed message queue /netprof-pair-\S+, left by "
                                   r"a local pair that was killed$")
        self.assert_gone(result.json)


if __name__ == "__main__":
    unittest.main()
