"""End-to-end: each subscriber's join time (issue 33, item 4): from its start to the publisher's
first acknowledgement, on its own clock, in its report and in the publisher's. Real processes
over UDP on 127.0.0.1."""

import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

DEADLINE_S = 30
HEAD_START_S = 1.0


class JoinTimeTest(NetprofTestCase):
    def test_a_subscriber_started_first_reports_waiting_for_its_publisher(self):
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        subscriber, sub_json = self.start("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}",
                                          "-u", pub_addr, json_name="sub")
        time.sleep(HEAD_START_S)
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "-t", "0.3",
                                         "--warmup-time", "0.1", json_name="pub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        [seen_by_publisher] = pub.json["subscribers"]
        own = sub.json["subscriber"]["join_seconds"]
        # Its head start, and then less than the test's deadline: discovery plus one hello.
        self.assertGreaterEqual(own, HEAD_START_S)
        self.assertLess(own, DEADLINE_S)
        # The publisher reports the subscriber's own figure (it came with its final counters).
        self.assertAlmostEqual(seen_by_publisher["join_seconds"], own, places=6)
        self.assertIn("Join time: ", pub.stdout)
        self.assertIn("its start to the publisher's first acknowledgement", sub.stdout)


if __name__ == "__main__":
    unittest.main()
