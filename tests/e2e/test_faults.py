"""End-to-end: what each side reports when its peer is absent, killed, or restarted mid-run.

Real processes over UDP unicast on 127.0.0.1, and over ZeroMQ tcp and shared memory where the
transport changes what happens (connections, segments, a keep-all ring). Every run has a
deadline; "mid-run" is not guessed from a sleep but read off the subscriber's live status line
(it runs on a pseudo-terminal, where netprof prints one), so a kill lands in the measured phase
even on a loaded machine.
"""

import os
import signal
import socket
import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

# Short phases: the file must stay well under a minute and a half on a quiet machine.
PACED = ["--send-hz", "1000", "--warmup-time", "0.2"]
DEADLINE_S = 30


def free_tcp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class FaultTestCase(NetprofTestCase):
    def kill(self, process):
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def assert_exit(self, result, status):
        self.assertEqual(result.returncode, status,
                         f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        self.assertIsNotNone(result.json, "no JSON report was written")

    # ---- the scenarios, each over the transport options given -------------------------------

    def publisher_killed(self, publisher_args, subscriber_args):
        subscriber = self.start_watched("-i", "1", *subscriber_args, "--idle-timeout", "1",
                                        json_name="sub")
        publisher, _ = self.start("-i", "0", *publisher_args, "-t", "30", *PACED)
        self.wait_for_measured_data(subscriber, publisher=publisher)
        self.kill(publisher)
        killed_at = time.monotonic()
        sub = self.finish_watched(subscriber)
        self.assertLess(time.monotonic() - killed_at, 10, "the subscriber outlived its bounds")
        self.assert_exit(sub, 1)
        self.assertEqual(sub.json["result"]["status"], "FAIL")
        own = sub.json["subscriber"]
        self.assertEqual(own["ended_by"], "publisher_silent")
        self.assertFalse(own["end_received"])
        self.assertGreater(own["received"], 0)  # partial figures, kept
        self.assertEqual(own["lost"], 0)        # unknown without END, never guessed
        self.assertIn("went silent", " ".join(sub.json["result"]["problems"]))
        self.assertIn("Lost: unknown", sub.stdout)
        return sub

    def subscriber_killed(self, publisher_args, subscriber_args):
        subscriber = self.start_watched("-i", "1", *subscriber_args, json_name="sub")
        publisher, pub_json = self.start("-i", "0", *publisher_args, "-t", "3", *PACED,
                                         json_name="pub")
        self.wait_for_measured_data(subscriber, publisher=publisher)
        self.kill(subscriber.process)
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        self.assert_exit(pub, 1)
        self.assertEqual(pub.json["result"]["status"], "FAIL")
        [gone] = pub.json["subscribers"]
        self.assertEqual(gone["outcome"], "vanished")
        self.assertFalse(gone["counters_received"])
        self.assertGreaterEqual(gone["last_heard_seconds"], 0)
        self.assertLess(gone["last_heard_seconds"], pub.json["publisher"]["measured_seconds"])
        problems = " ".join(pub.json["result"]["problems"])
        self.assertIn("subscriber 1 vanished", problems)
        self.assertIn("sent no final counters", problems)
        self.assertIn("(vanished: no final counters)", pub.stdout)
        return pub

    def subscriber_restarted(self, publisher_args, subscriber_args):
        first = self.start_watched("-i", "1", *subscriber_args, json_name="first")
        publisher, pub_json = self.start("-i", "0", *publisher_args, "-t", "4", *PACED,
                                         json_name="pub")
        self.wait_for_measured_data(first, publisher=publisher)
        self.kill(first.process)
        second, second_json = self.start("-i", "1", *subscriber_args, json_name="second")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        again = self.finish(second, second_json, DEADLINE_S)

        self.assert_exit(pub, 1)
        [sub] = pub.json["subscribers"]
        self.assertEqual(sub["outcome"], "restarted")
        self.assertEqual(sub["restarts"], 1)
        self.assertGreater(sub["restarted_seconds"], 0)
        self.assertTrue(sub["counters_received"])
        # The new process's counters: part of the run, and said to be.
        self.assertGreater(sub["received"], 0)
        self.assertLess(sub["received"], pub.json["publisher"]["messages_sent"])
        self.assertIn("subscriber 1 restarted", " ".join(pub.json["result"]["problems"]))

        # The new process took part in the same run as a late joiner; loss alone is a warning.
        self.assert_exit(again, 0)
        own = again.json["subscriber"]
        self.assertEqual(again.json["run_id"], pub.json["run_id"])
        self.assertTrue(own["end_received"])
        self.assertTrue(own["joined_late"])
        self.assertEqual(own["received"], sub["received"])
        return pub, again

    def publisher_restarted(self, publisher_args, subscriber_args):
        subscriber = self.start_watched("-i", "1", *subscriber_args, "--idle-timeout", "5",
                                        json_name="sub")
        first, _ = self.start("-i", "0", *publisher_args, "-t", "30", *PACED)
        self.wait_for_measured_data(subscriber, publisher=first)
        self.kill(first)
        second, second_json = self.start("-i", "0", *publisher_args, "-t", "1", *PACED,
                                         "--wait", "10", json_name="second")
        pub = self.finish(second, second_json, DEADLINE_S)
        sub = self.finish_watched(subscriber)

        # The new publisher got its subscriber: a clean run.
        self.assert_exit(pub, 0)
        [seen] = pub.json["subscribers"]
        self.assertEqual(seen["outcome"], "complete")
        self.assertEqual(seen["received"], pub.json["publisher"]["messages_sent"])

        # The subscriber reports the old run as abandoned and partial, then the new one.
        self.assert_exit(sub, 0)
        self.assertEqual(sub.json["run_id"], pub.json["run_id"])
        self.assertEqual(sub.json["subscriber"]["ended_by"], "end")
        self.assertEqual(sub.json["subscriber"]["received"],
                         pub.json["publisher"]["messages_sent"])
        [old] = sub.json["abandoned_runs"]
        self.assertNotEqual(old["run_id"], pub.json["run_id"])
        self.assertEqual(old["subscriber"]["ended_by"], "publisher_restarted")
        self.assertFalse(old["subscriber"]["end_received"])
        self.assertGreater(old["subscriber"]["received"], 0)
        self.assertIn("the publisher restarted", " ".join(sub.json["result"]["warnings"]))
        self.assertIn("Earlier runs (abandoned when the publisher restarted", sub.stdout)
        return pub, sub


class UdpFaultsTest(FaultTestCase):
    def setUp(self):
        super().setUp()
        self.pub_addr = f"127.0.0.1:{free_udp_port()}"
        self.sub_addr = f"127.0.0.1:{free_udp_port()}"
        self.pub_args = ["-u", self.pub_addr]
        self.sub_args = ["-u", self.sub_addr, "-u", self.pub_addr]

    def test_publisher_absent(self):
        started = time.monotonic()
        sub = self.run_netprof("-i", "1", *self.sub_args, "--wait", "1", json_name="sub",
                               deadline_s=20)
        self.assertLess(time.monotonic() - started, 10)
        self.assert_exit(sub, 3)
        self.assertEqual(sub.json["subscriber"]["ended_by"], "no_publisher")
        self.assertEqual(sub.json["run_id"], "0000000000000000")

    def test_publisher_killed_mid_run(self):
        self.publisher_killed(self.pub_args, self.sub_args)

    def test_subscriber_killed_mid_run(self):
        self.subscriber_killed(self.pub_args, self.sub_args)

    def test_subscriber_restarted_mid_run(self):
        self.subscriber_restarted(self.pub_args, self.sub_args)

    def test_publisher_restarted_with_the_subscriber_still_up(self):
        self.publisher_restarted(self.pub_args, self.sub_args)


class ZmqFaultsTest(FaultTestCase):
    """TCP connections: the subscriber's connection to a killed publisher breaks and ZeroMQ
    reconnects to whatever binds the address next."""

    def setUp(self):
        super().setUp()
        self.pub_endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        self.pub_args = ["--zmq", self.pub_endpoint]
        self.sub_args = ["--zmq", f"tcp://127.0.0.1:{free_tcp_port()}", "--zmq", self.pub_endpoint]

    def test_subscriber_absent(self):
        pub = self.run_netprof("-i", "0", *self.pub_args, "--wait", "1", json_name="pub",
                               deadline_s=20)
        self.assert_exit(pub, 3)
        self.assertIn("subscriber", pub.json["result"]["problems"][0])
        self.assertEqual(pub.json["subscribers"], [])

    def test_publisher_restarted_with_the_subscriber_still_up(self):
        self.publisher_restarted(self.pub_args, self.sub_args)

    def test_subscriber_restarted_mid_run(self):
        self.subscriber_restarted(self.pub_args, self.sub_args)


class ShmFaultsTest(FaultTestCase):
    """A segment the publisher owns, subscribers in its slots; keep-all makes the publisher
    wait for every live reader, so a dead one must be found and dropped."""

    def setUp(self):
        super().setUp()
        name = f"faults-{os.getpid()}-{self.id().rsplit('.', 1)[-1]}"
        self.path = f"/dev/shm/netprof-{name}"
        self.addCleanup(self._remove_segment)
        self.pub_args = ["--shm", name, "--shm-history", "keep-all"]
        self.sub_args = ["--shm", name]

    def _remove_segment(self):
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def test_subscriber_killed_in_keep_all_does_not_stall_the_publisher(self):
        started = time.monotonic()
        pub = self.subscriber_killed(self.pub_args, self.sub_args)
        # 3 s measured, ~3 s of END collection, start-up: a stalled ring would hit the deadline.
        self.assertLess(time.monotonic() - started, 20)
        self.assertIn("dropped 1 subscriber(s) whose process had died",
                      " ".join(pub.json["endpoint"]["notes"]))
        self.assertFalse(os.path.exists(self.path), "the publisher left its segment behind")

    def test_restarted_subscriber_joins_again(self):
        pub, _ = self.subscriber_restarted(self.pub_args, self.sub_args)
        self.assertIn("dropped 1 subscriber(s) whose process had died",
                      " ".join(pub.json["endpoint"]["notes"]))

    def test_publisher_killed_then_restarted_replaces_its_segment(self):
        pub, _ = self.publisher_restarted(self.pub_args, self.sub_args)
        self.assertIn("replaced a stale segment left by PID",
                      " ".join(pub.json["endpoint"]["notes"]))


if __name__ == "__main__":
    unittest.main()
