"""End-to-end: --zmq-pattern pushpull (issue 33, RMR's round-robin experiment over ZeroMQ): a
PUSH/PULL pair carries the data beside the XPUB/XSUB. Alone with one subscriber it carries
everything, in order and without loss; under --fanout round-robin PUSH deals each data message
to one subscriber in turn, so the publisher checks what all of them received together against
what it sent. Real processes over tcp:// on 127.0.0.1 and ipc:// in the test's temporary
directory."""

import os
import unittest

from netprof_test_case import free_tcp_port_run
from test_fanout import RoundRobinCase

DEADLINE_S = 60
PUSHPULL = ["--zmq-pattern", "pushpull"]
WAIT = ["--wait", "20"]


class ZmqRoundRobinTest(RoundRobinCase):
    def publisher_endpoint(self):
        """A loopback endpoint whose next port (PUSH's) is free too."""
        return f"tcp://127.0.0.1:{free_tcp_port_run(2)}"

    def subscriber_transport(self, endpoint):
        """A subscriber's: a port of its own to bind, the publisher's endpoint and the pattern
        only (not --fanout)."""
        return ["--zmq", "tcp://127.0.0.1:*", "--zmq", endpoint, *PUSHPULL]

    def test_five_subscribers_together_get_all_100000_messages(self):
        endpoint = self.publisher_endpoint()
        pub, subs = self.deal(["--zmq", endpoint, *PUSHPULL, *WAIT], 5, "--count", "100000",
                              subscriber_args=lambda i: [*self.subscriber_transport(endpoint),
                                                         *WAIT])
        self.assert_dealt_run_passed(pub, subs, 100000)
        self.assertIn("PUSH deals the data and END to each subscriber in turn", pub.stdout)

    def test_one_command_over_ipc_leaves_no_file(self):
        path = os.path.join(self._tmp.name, "group.ipc")
        result = self.run_netprof("--local-pair", "--zmq", f"ipc://{path}", *PUSHPULL,
                                  "--fanout", "round-robin", "--subscribers", "3", "--count",
                                  "20000", json_name="group", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(len(self.assert_dealt_whole(result.json, result.stdout)), 3)
        for leftover in (path, path + ".deal"):
            self.assertFalse(os.path.exists(leftover), leftover)

    def test_ping_pong_owes_each_probe_one_echo(self):
        result = self.run_netprof("--local-pair", "--zmq", *PUSHPULL, "--fanout", "round-robin",
                                  "--subscribers", "3", "--mode", "ping-pong", "--count", "600",
                                  "--warmup-count", "30", "--probe-timeout", "5",
                                  json_name="ping-pong", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.json["publisher"]["echoes_received"], 600, result.stdout)
        echoed = [summary["echoes"] for summary in result.json["subscribers"]]
        self.assertEqual(sum(echoed), 600, echoed)

    def test_one_subscriber_gets_the_whole_stream_in_order(self):
        result = self.run_netprof("--local-pair", "--zmq", *PUSHPULL, "--count", "50000",
                                  json_name="one", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.json["endpoint"]["qos"]["reliability"], "reliable")
        [summary] = result.json["subscribers"]
        self.assertEqual((summary["unique"], summary["lost"], summary["out_of_order"]),
                         (50000, 0, 0), summary)

    def test_a_subscriber_killed_mid_run_is_named_and_the_others_finish(self):
        # What was queued to it is lost, which over loopback, where its connection closes at
        # once, may be nothing: the total only has to add up.
        endpoint = self.publisher_endpoint()
        self.kill_one_of_three_dealt_to(self.subscriber_transport(endpoint),
                                        ["--zmq", endpoint, *PUSHPULL], DEADLINE_S)

    def test_what_push_cannot_do_is_refused_with_the_way_out(self):
        endpoint = self.publisher_endpoint()
        for args, why in (
                (["--fanout", "round-robin"], "an XPUB sends every message to every subscriber"),
                ([*PUSHPULL, "--subscribers", "3"], "use --zmq-pattern pubsub for several"),
                ([*PUSHPULL, "--reliability", "best-effort"], "give --zmq-pattern pubsub")):
            with self.subTest(args=args):
                result = self.run_netprof("-i", "0", "--zmq", endpoint, *args, deadline_s=20)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(why, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
