"""End-to-end: --fanout round-robin over NNG push/pull (issue 33, RMR's experiment): push0 deals
each data message to the next subscriber ready for one, so the publisher cannot count what went
to each; it checks that what all subscribers received together is what it sent. Real processes
over tcp:// on 127.0.0.1 and ipc:// in the test's temporary directory."""

import os
import unittest

from test_fanout import RoundRobinCase
from test_nng import NngTestCase

DEADLINE_S = 60
PING_PONG = ["--mode", "ping-pong", "--count", "600", "--warmup-count", "30",
             "--probe-timeout", "5"]


class RoundRobinTest(NngTestCase, RoundRobinCase):
    def test_five_subscribers_together_get_all_100000_messages(self):
        # Each subscriber is given the URL and the pattern only (not --fanout).
        pushpull = ["--nng", self.url("tcp"), "--nng-pattern", "pushpull", "--wait", "20"]
        pub, subs = self.deal(pushpull, 5, "--count", "100000")
        self.assert_dealt_run_passed(pub, subs, 100000)

    def test_one_command_over_ipc_leaves_no_file(self):
        path = self.ipc_path("group")
        result = self.run_netprof("--local-pair", "--nng", f"ipc://{path}", "--nng-pattern",
                                  "pushpull", "--fanout", "round-robin", "--subscribers", "3",
                                  "--count", "20000", json_name="group", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assert_dealt_whole(result.json, result.stdout)
        self.assertEqual(len(result.json["subscribers"]), 3)
        for suffix in ("", ".back", ".ctl"):
            self.assertFalse(os.path.exists(path + suffix), suffix)

    def test_ping_pong_owes_each_probe_one_echo(self):
        result = self.run_netprof("--local-pair", "--nng", "--nng-pattern", "pushpull",
                                  "--fanout", "round-robin", "--subscribers", "3", *PING_PONG,
                                  json_name="ping-pong", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        publisher = result.json["publisher"]
        self.assertEqual(publisher["probes_sent"], 600)
        self.assertEqual(publisher["echoes_received"], 600, result.stdout)
        echoed = [summary["echoes"] for summary in result.json["subscribers"]]
        self.assertEqual(sum(echoed), 600, echoed)
        for summary in result.json["subscribers"]:
            self.assertEqual(summary["probes_sent"], summary["echoes"], summary)

    def test_a_subscriber_killed_mid_run_shows_as_loss_in_the_total(self):
        url = self.url("tcp")
        pushpull = ["--nng", url, "--nng-pattern", "pushpull"]
        loss = self.kill_one_of_three_dealt_to(pushpull, pushpull, DEADLINE_S)
        self.assertGreater(loss["lost"], 0, loss)

    def test_patterns_that_cannot_deal_are_refused(self):
        for pattern, why in (("pubsub", "pub0 sends every message to every subscriber"),
                             ("pair", "pair0 joins two sockets only")):
            with self.subTest(pattern=pattern):
                self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "--nng-pattern",
                                        pattern, "--fanout", "round-robin", mentions=why)


if __name__ == "__main__":
    unittest.main()
