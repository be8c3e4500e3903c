"""End-to-end: --count-received (issue 33, item 3): the publisher measures until every subscriber
has N measured round trips (ping-pong) or N measured messages received (a stream), the DDS
evaluation's "10,000 stats samples"; real processes over UDP and TCP on 127.0.0.1."""

import os
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

DEADLINE_S = 40


class CountReceivedTest(NetprofTestCase):
    def test_a_local_pair_measures_exactly_the_round_trips_asked_for(self):
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "--count-received",
                                  "10000", "-t", "30", json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [sub] = result.json["subscribers"]
        self.assertEqual(sub["echoes"], 10000)
        self.assertEqual(result.json["publisher"]["messages_sent"], 10000)
        self.assertEqual(result.json["settings"]["count_received"], 10000)
        self.assertIn("Count received: 10,000 round trips per subscriber", result.stdout)

    def test_every_subscriber_reaches_the_count(self):
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "--subscribers", "2",
                                         "--mode", "ping-pong", "--count-received", "2000",
                                         "-t", "30", json_name="pub")
        subscribers = [self.start("-i", str(i), "-u", f"127.0.0.1:{free_udp_port()}",
                                  "-u", pub_addr, json_name=f"sub{i}") for i in (1, 2)]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        for process, path in subscribers:
            sub = self.finish(process, path, DEADLINE_S)
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        echoes = sorted(s["echoes"] for s in pub.json["subscribers"])
        self.assertEqual(len(echoes), 2)
        # Ping-pong waits for both echoes of a probe, so without loss both stop at once.
        self.assertEqual(echoes[0], 2000, echoes)
        self.assertLess(echoes[1] - echoes[0], 20, "a lost echo costs a probe, not a run")

    def test_a_count_the_time_cannot_hold_fails_and_says_how_far_it_got(self):
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "--send-hz", "1000",
                                  "--count-received", "100000", "-t", "0.5",
                                  json_name="short", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("round trips --count-received asked for before -t 0.5 s ended the "
                      "measured phase", result.stdout)
        self.assertFalse(result.json["result"]["success"])

    def test_a_stream_stops_once_every_subscriber_has_received_the_count(self):
        result = self.run_netprof("--local-pair", "--subscribers", "2", "--count-received",
                                  "20000", "-t", "30", json_name="stream", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        subscribers = result.json["subscribers"]
        self.assertEqual(len(subscribers), 2)
        for sub in subscribers:
            self.assertGreaterEqual(sub["unique"], 20000, sub)
        # It stopped on the reports, not on -t: what was in flight when the last report came
        # is all it sent beyond the count.
        self.assertLess(result.json["publisher"]["measured_seconds"], 25)
        self.assertIn("Count received: 20,000 measured messages per subscriber", result.stdout)

    def test_round_robin_stops_once_each_share_reaches_the_count(self):
        result = self.run_netprof("--local-pair", "--tcp", "--fanout", "round-robin",
                                  "--subscribers", "3", "--count-received", "5000", "-t", "30",
                                  json_name="dealt", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        shares = [sub["unique"] for sub in result.json["subscribers"]]
        self.assertEqual(len(shares), 3)
        self.assertGreaterEqual(min(shares), 5000, shares)
        self.assertEqual(sum(shares), result.json["publisher"]["messages_sent"])

    def test_sealed_reports_end_a_keyed_stream(self):
        key = self.json_path("key")
        with open(key, "wb") as out:
            out.write(os.urandom(32))
        os.chmod(key, 0o600)
        result = self.run_netprof("--local-pair", "--key-file", key, "--count-received",
                                  "5000", "-t", "30", json_name="keyed", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [sub] = result.json["subscribers"]
        self.assertGreaterEqual(sub["unique"], 5000)
        self.assertLess(result.json["publisher"]["measured_seconds"], 25)

    def test_a_stream_the_time_cannot_hold_fails_and_says_how_far_it_got(self):
        result = self.run_netprof("--local-pair", "--send-hz", "1000", "--count-received",
                                  "100000", "-t", "0.5", json_name="short_stream",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("measured messages --count-received asked for before -t 0.5 s ended the "
                      "measured phase", result.stdout)

    def test_a_count_of_messages_sent_beside_it_is_refused(self):
        result = self.run_netprof("--local-pair", "--count", "10", "--count-received", "100")
        self.assertEqual(result.returncode, 2)
        self.assertIn("give either --count (messages sent) or --count-received", result.stderr)


if __name__ == "__main__":
    unittest.main()
