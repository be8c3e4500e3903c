"""End-to-end: what a new user meets in the first minutes (issue 31), with real netprof
processes on loopback, each run under a deadline and killed by PID in cleanup.

--json - writes JSON to stdout; bare transport flags work with --local-pair; a stream
transport's report has no "Datagrams:" line; a UDP subscriber whose publisher is not there
hears that the port is closed, in a short report; a subscriber's last interval is never empty.
"""

import json
import os
import re
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

SHORT_RUN = ["-t", "0.4", "--warmup-time", "0.1", "--wait", "10"]
RUNTIME_ERROR = 3


class FirstMinutesTest(NetprofTestCase):
    def test_json_dash_is_standard_output_and_the_text_report_goes_to_stderr(self):
        result = self.run_netprof("--local-pair", *SHORT_RUN, "-s", "1k", "--json", "-",
                                  deadline_s=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        report = json.loads(result.stdout)  # nothing but JSON on stdout
        self.assertEqual(report["settings"]["payload_size"], 1024)
        self.assertIn("Test: SUCCESS", result.stderr)
        self.assertFalse(os.path.exists("-"), "a file named '-' was written")

    def test_bare_transport_flags_run_a_local_pair_on_loopback(self):
        listing = json.loads(self.run_netprof("--list-transports", "--json", deadline_s=20).stdout)
        bare = [t["named_by"]["option"] for t in listing["transports"]
                if t["named_by"]["value_optional"]]
        self.assertTrue({"--tcp", "--uds", "--zmq"} <= set(bare), bare)
        for flag in bare:
            with self.subTest(flag=flag):
                result = self.run_netprof("--local-pair", flag, *SHORT_RUN, deadline_s=30)
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                self.assertIn("Test: SUCCESS", result.stdout)

    def test_a_stream_transport_reports_no_datagrams_and_udp_does(self):
        tcp = self.run_netprof("--local-pair", "--tcp", *SHORT_RUN, deadline_s=30)
        self.assertEqual(tcp.returncode, 0, tcp.stderr)
        self.assertNotIn("Datagrams:", tcp.stdout)
        udp = self.run_netprof("--local-pair", *SHORT_RUN, deadline_s=30)
        self.assertEqual(udp.returncode, 0, udp.stderr)
        self.assertIn("Datagrams:", udp.stdout)

    def test_a_udp_subscriber_without_a_publisher_hears_the_port_is_closed_in_a_short_report(self):
        own, closed = free_udp_port(), free_udp_port()
        result = self.run_netprof("-i", "1", "-u", f"127.0.0.1:{own}", "-u",
                                  f"127.0.0.1:{closed}", "--wait", "1", json_name="sub",
                                  deadline_s=30)
        self.assertEqual(result.returncode, RUNTIME_ERROR, result.stderr)
        self.assertIn("no publisher was heard within --wait 1 s", result.stdout)
        self.assertIn(f"the kernel reported the port closed: nothing listened at "
                      f"127.0.0.1:{closed}", result.stdout)
        self.assertLessEqual(len(result.stdout.splitlines()), 14, result.stdout)
        self.assertNotIn("Messages received: 0", result.stdout)
        self.assertIsNotNone(result.json["subscriber"])  # the JSON keeps every figure

    def test_a_subscribers_last_interval_is_never_empty(self):
        publisher_port, subscriber_port = free_udp_port(), free_udp_port()
        publisher = f"127.0.0.1:{publisher_port}"
        subscriber, _ = self.start("-i", "1", "-u", f"127.0.0.1:{subscriber_port}", "-u",
                                   publisher, "--interval", "0.5", "--wait", "10")
        sent = self.run_netprof("-i", "0", "-u", publisher, "-t", "1", "--warmup-time", "0.1",
                                "--interval", "0.5", deadline_s=30)
        self.assertEqual(sent.returncode, 0, sent.stderr)
        received = self.finish(subscriber, deadline_s=30)
        self.assertEqual(received.returncode, 0, received.stderr)
        intervals = re.findall(r"^\[\s*([0-9.]+)-\s*([0-9.]+) s\]", received.stdout, re.M)
        self.assertTrue(intervals, received.stdout)
        for start, end in intervals:
            self.assertNotEqual(start, end, received.stdout)


if __name__ == "__main__":
    unittest.main()
