"""End-to-end: --interval, send accounting and the status line's waiting (issue 22).

A real local pair with --interval 0.2 -t 1: its intervals add up to the run's totals, and its
send accounting adds up (attempted = sent + pushed back + failed). A publisher and a subscriber
run apart give the subscriber's intervals too. With stderr on a pseudo-terminal, a lone
publisher's and a lone subscriber's status lines say what they wait for.
"""

import unittest

from netprof_test_case import NETPROF, NetprofTestCase, free_udp_port
from netprof_processes import run_on_terminal  # noqa: I001 (on the path netprof_test_case sets)

DEADLINE_S = 30


def check_send_accounting(test, accounting):
    test.assertEqual(accounting["attempted"],
                     accounting["sent"] + accounting["pushed_back"] + accounting["failed"])
    test.assertEqual(sum(accounting["refused_by_cause"].values()),
                     accounting["pushed_back"] + accounting["failed"])


class IntervalsTest(NetprofTestCase):
    def test_a_local_pairs_intervals_add_up_to_its_totals(self):
        result = self.run_netprof("--local-pair", "--interval", "0.2", "-t", "1",
                                  "--send-hz", "20000", "--warmup-time", "0.1",
                                  json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        publisher = result.json["publisher"]
        intervals = result.json["intervals"]
        # 1 s in 0.2 s steps; a boundary the reporter was late for is merged, never lost.
        self.assertGreaterEqual(len(intervals), 3)
        self.assertLessEqual(len(intervals), 6)
        self.assertEqual(sum(i["messages"] for i in intervals), publisher["messages_sent"])
        self.assertEqual(sum(i["payload_bytes"] for i in intervals),
                         publisher["messages_sent"] * result.json["settings"]["payload_size"])
        accounting = publisher["send_accounting"]
        check_send_accounting(self, accounting)
        self.assertEqual(accounting["sent"], publisher["messages_sent"])
        for key in ("attempted", "sent", "pushed_back", "failed"):
            self.assertEqual(sum(i["send_accounting"][key] for i in intervals), accounting[key])
        for interval in intervals:
            check_send_accounting(self, interval["send_accounting"])
        # Contiguous, in order, from the phase's start to its end.
        self.assertEqual(intervals[0]["start_seconds"], 0.0)
        for before, after in zip(intervals, intervals[1:]):
            self.assertAlmostEqual(before["end_seconds"], after["start_seconds"], places=6)
        self.assertAlmostEqual(intervals[-1]["end_seconds"], publisher["measured_seconds"],
                               delta=0.05)
        # Echoes that came back within the phase; the rest only in the run's totals.
        self.assertLessEqual(sum(i["echoes"] for i in intervals), publisher["echoes_received"])
        self.assertGreater(sum(i["latency_ns"]["count"] for i in intervals), 0)
        lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
        self.assertEqual(len(lines), len(intervals), result.stdout)
        self.assertIn(" sent ", lines[0])
        self.assertIn("Send attempts: ", result.stdout)

    def test_a_subscribers_intervals_add_up_to_what_it_received(self):
        pub_port, sub_port = free_udp_port(), free_udp_port()
        subscriber, sub_json = self.start(
            "-i", "1", "-u", f"127.0.0.1:{sub_port}", "-u", f"127.0.0.1:{pub_port}",
            "--interval", "0.2", json_name="sub")
        publisher, pub_json = self.start(
            "-i", "0", "-u", f"127.0.0.1:{pub_port}", "-u", f"127.0.0.1:{sub_port}",
            "-t", "1", "--send-hz", "20000", "--warmup-time", "0.1", json_name="pub")
        pub = self.finish(publisher, pub_json, deadline_s=DEADLINE_S)
        sub = self.finish(subscriber, sub_json, deadline_s=DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertNotIn("intervals", pub.json)  # the publisher was not given --interval
        mine = sub.json["subscriber"]
        intervals = sub.json["intervals"]
        self.assertGreaterEqual(len(intervals), 3)
        self.assertEqual(sum(i["messages"] for i in intervals), mine["received"])
        self.assertEqual(sum(i["payload_bytes"] for i in intervals), mine["payload_bytes"])
        self.assertLessEqual(sum(i["lost"] for i in intervals), mine["received"])
        self.assertTrue(all("send_accounting" not in i for i in intervals))
        lines = [line for line in sub.stdout.splitlines() if line.startswith("[")]
        self.assertEqual(len(lines), len(intervals), sub.stdout)
        self.assertIn(" received ", lines[0])


class StatusLineWaitingTest(unittest.TestCase):
    """netprof with stderr on a pseudo-terminal, the status line's only trigger."""

    def terminal_of(self, *args):
        outcome = run_on_terminal([NETPROF, *args], DEADLINE_S)
        self.assertIsNotNone(outcome.returncode, f"still running after {DEADLINE_S} s: {args}")
        return outcome.terminal

    def test_a_lone_publisher_says_how_many_subscribers_it_waits_for(self):
        drawn = self.terminal_of("-i", "0", "-u", f"127.0.0.1:{free_udp_port()}",
                                 "--subscribers", "2", "--wait", "2.5")
        self.assertIn("waiting for 2 subscribers (0 announced)", drawn)

    def test_a_lone_subscriber_says_it_waits_for_the_publishers_acknowledgement(self):
        drawn = self.terminal_of("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}",
                                 "-u", f"127.0.0.1:{free_udp_port()}", "--wait", "2.5")
        self.assertIn("waiting for the publisher's acknowledgement", drawn)


if __name__ == "__main__":
    unittest.main()
