"""End-to-end: --local-pair --threads (issue 20, "In-process").

The publisher and the subscriber run as two threads of one netprof process, each with an
endpoint of its own: over shm, udp, tcp, uds, mq and ZeroMQ's inproc:// (allowed only here). Each run is a
short ping-pong that must lose nothing; the report says "threads of one process" and the JSON
"local_pair": "threads". --threads is refused without --local-pair, inproc:// without
--threads, and so is any transport of the build that does not allow threads (from
--list-transports --json). SIGINT, twice as `timeout` sends it, ends the process with its report
within a deadline.
"""

import json
import os
import signal
import time
import unittest

from netprof_test_case import NetprofTestCase
from test_mq import queue_exists, remove_queue

PING_PONG = ["--mode", "ping-pong", "--count", "500", "--warmup-count", "20"]
DEADLINE_S = 30
INTERRUPTED = 130
# An interrupted publisher collects final counters for 0.5 s; the rest is a loaded machine.
INTERRUPT_DEADLINE_S = 10
SIGINT_CAUGHT = 1 << (signal.SIGINT - 1)


def catches_sigint(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16) & SIGINT_CAUGHT != 0
    return False


class ThreadPairTest(NetprofTestCase):
    def run_pair(self, *args, json_name="pair"):
        return self.run_netprof("--local-pair", "--threads", *args, json_name=json_name,
                                deadline_s=DEADLINE_S)

    def shm_name(self, stem):
        name = f"{stem}-{os.getpid()}"
        segment = f"/dev/shm/netprof-{name}"
        self.addCleanup(lambda: os.path.exists(segment) and os.unlink(segment))
        return name

    def assert_ping_pong_without_loss(self, result, transport):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stderr, "")
        report = result.json
        self.assertEqual(report["settings"]["transport"], transport)
        self.assertEqual(report["settings"]["local_pair"], "threads")
        self.assertEqual(report["result"]["status"], "SUCCESS")
        self.assert_latency_ordered(report["publisher"]["latency"]["rtt_ns"])
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], 500, subscriber)
        self.assertEqual(subscriber["lost"], 0, subscriber)
        self.assertIn("\n  Local pair: threads of one process\n", result.stdout)
        self.assertEqual(result.stdout.count("Test: SUCCESS"), 1, "the subscriber is quiet")

    def test_shm(self):
        result = self.run_pair("--shm", self.shm_name("threads"), *PING_PONG)
        self.assert_ping_pong_without_loss(result, "shm")

    def test_udp(self):
        self.assert_ping_pong_without_loss(self.run_pair(*PING_PONG), "udp")

    def test_tcp(self):
        result = self.run_pair("--tcp", "127.0.0.1:0", *PING_PONG)
        self.assert_ping_pong_without_loss(result, "tcp")

    def test_uds_over_an_abstract_name(self):
        result = self.run_pair("--uds", f"@netprof-threads-{os.getpid()}", *PING_PONG)
        self.assert_ping_pong_without_loss(result, "uds")

    def test_mq(self):
        name = f"threads-{os.getpid()}"
        for queue in (f"/netprof-{name}", f"/netprof-{name}:1"):
            self.addCleanup(remove_queue, queue)
        result = self.run_pair("--mq", name, *PING_PONG)
        self.assert_ping_pong_without_loss(result, "mq")
        endpoint = result.json["endpoint"]
        for queue in endpoint["local_addresses"] + endpoint["peer_addresses"]:
            self.assertFalse(queue_exists(queue), f"{queue} was left behind")

    def test_zmq_inproc(self):
        # With zero-copy sends: lent buffers reach the subscriber's thread by reference.
        result = self.run_pair("--zmq", f"inproc://threads-{os.getpid()}", "--zmq-zero-copy",
                               "1", *PING_PONG)
        self.assert_ping_pong_without_loss(result, "zmq")
        self.assertEqual(result.json["endpoint"]["local_addresses"],
                         [f"inproc://threads-{os.getpid()}"])

    def test_the_process_pair_says_so_too(self):
        result = self.run_netprof("--local-pair", *PING_PONG, json_name="processes",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.json["settings"]["local_pair"], "processes")
        self.assertIn("\n  Local pair: two processes\n", result.stdout)

    def test_sigint_twice_ends_both_threads_with_a_report(self):
        process, json_path = self.start("--local-pair", "--threads", "-t", "30", "--send-hz",
                                        "2000", "--warmup-time", "0.1", json_name="interrupted")
        # A SIGINT before the handler is in would kill it outright: not what this is about.
        started_at = time.monotonic()
        while not catches_sigint(process.pid):
            self.assertIsNone(process.poll(), "the pair exited before it was interrupted")
            self.assertLess(time.monotonic() - started_at, DEADLINE_S, "no SIGINT handler")
            time.sleep(0.005)
        interrupted_at = time.monotonic()
        # Twice, as `timeout -s INT` does (the process, then its group): the second is a repeat.
        process.send_signal(signal.SIGINT)
        process.send_signal(signal.SIGINT)
        result = self.finish(process, json_path, INTERRUPT_DEADLINE_S)
        self.assertLess(time.monotonic() - interrupted_at, INTERRUPT_DEADLINE_S)
        self.assertEqual(result.returncode, INTERRUPTED, result.stderr)
        self.assertIn("Test: INTERRUPTED", result.stdout)
        self.assertTrue(result.json["result"]["interrupted"])


class ThreadPairRefusalTest(NetprofTestCase):
    def assert_usage_error(self, *args, mentions):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        self.assertIn(mentions, result.stderr)
        self.assertTrue(result.stderr.startswith("netprof: "), result.stderr)

    def test_threads_without_local_pair(self):
        self.assert_usage_error("--threads", "-i", "0", "-u", "127.0.0.1:40000",
                                mentions="give it with --local-pair")

    def test_inproc_without_threads(self):
        # A lone role's refusal is test_zmq.py's test_inproc_is_refused_with_the_reason.
        self.assert_usage_error("--local-pair", "--zmq", "inproc://x", mentions="--threads")

    def test_a_transport_that_does_not_allow_threads(self):
        listing = self.run_netprof("--list-transports", "--json", deadline_s=DEADLINE_S)
        self.assertEqual(listing.returncode, 0, listing.stderr)
        transports = json.loads(listing.stdout)["transports"]
        refusing = [t for t in transports if not t["allows_threads"]]
        if not refusing:
            self.skipTest("every transport of this build runs as threads")
        transport = refusing[0]
        result = self.run_netprof("--local-pair", "--threads", *transport["local_pair"]["publisher"],
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"--threads: the {transport['name']} transport cannot run its publisher",
                      result.stderr)


if __name__ == "__main__":
    unittest.main()
