"""End-to-end: real publisher and subscriber processes over UDP loopback."""

import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

# A modest rate that loopback carries without loss on a loaded 2-core machine.
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]


class LocalPairTest(NetprofTestCase):
    def test_local_pair_succeeds_with_zero_loss_and_echoed_probes(self):
        result = self.run_netprof("--local-pair", *MODEST, json_name="pair")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith("Test: SUCCESS"), result.stdout)
        report = result.json
        self.assertEqual(report["result"]["status"], "SUCCESS")
        publisher = report["publisher"]
        [subscriber] = report["subscribers"]
        self.assertGreater(publisher["messages_sent"], 0)
        self.assertEqual(subscriber["received"], publisher["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
        self.assertGreater(publisher["probes_sent"], 0)
        self.assertEqual(publisher["echoes_received"], publisher["probes_sent"])
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])
        self.assertAlmostEqual(publisher["latency"]["one_way_ns"]["p50"],
                               publisher["latency"]["rtt_ns"]["p50"] / 2, delta=1)
        # Paced, each probe leaves at or after it was due, so every round trip from the actual
        # send is at most the one from the due time (within the histogram's 0.1%).
        corrected = publisher["latency"]["rtt_ns"]
        uncorrected = publisher["latency"]["rtt_uncorrected_ns"]
        self.assertEqual(uncorrected["count"], corrected["count"])
        for figure in ("min", "p50", "p99", "max"):
            self.assertLessEqual(uncorrected[figure], corrected[figure] * 1.001, figure)

    def test_count_sends_exactly_that_many_messages(self):
        result = self.run_netprof("--local-pair", "--count", "500", "--send-hz", "5000",
                                  "--warmup-count", "50", json_name="count")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.json["publisher"]["messages_sent"], 500)
        self.assertEqual(result.json["subscribers"][0]["received"], 500)

    def test_ping_pong_echoes_every_probe(self):
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "--count", "300",
                                  "--warmup-count", "20", json_name="pingpong")
        self.assertEqual(result.returncode, 0, result.stderr)
        publisher = result.json["publisher"]
        self.assertEqual(publisher["probes_sent"], 300)
        self.assertEqual(publisher["echoes_received"], 300)
        self.assertEqual(publisher["latency"]["rtt_ns"]["count"], 300)
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])

    def test_num_vars_records_are_decoded_for_every_message(self):
        result = self.run_netprof("--local-pair", "--num-vars", "4", "-s", "256",
                                  "--count", "200", "--send-hz", "5000", json_name="vars")
        self.assertEqual(result.returncode, 0, result.stderr)
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["records_decoded"], 4 * subscriber["received"])
        self.assertEqual(subscriber["payload_bytes"], 256 * subscriber["received"])


class TwoTerminalsTest(NetprofTestCase):
    def test_publisher_and_subscriber_agree_on_counts(self):
        pub_port, sub_port = free_udp_port(), free_udp_port()
        pub_addr, sub_addr = f"127.0.0.1:{pub_port}", f"127.0.0.1:{sub_port}"
        subscriber, sub_json = self.start("-i", "1", "-u", sub_addr, "-u", pub_addr, "--wait", "20",
                                          json_name="sub")
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, *MODEST, "--wait", "20",
                                         json_name="pub")
        pub = self.finish(publisher, pub_json)
        sub = self.finish(subscriber, sub_json)
        self.assertEqual(pub.returncode, 0, pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stderr)
        self.assertTrue(sub.json["subscriber"]["end_received"])
        self.assertEqual(sub.json["subscriber"]["received"], pub.json["subscribers"][0]["received"])
        self.assertEqual(sub.json["subscriber"]["received"], pub.json["publisher"]["messages_sent"])
        self.assertEqual(sub.json["run_id"], pub.json["run_id"])
        self.assertEqual(sub.json["subscriber"]["probes_echoed"],
                         pub.json["publisher"]["probes_sent"])


class MissingPeerTest(NetprofTestCase):
    def test_publisher_without_subscriber_fails_within_its_wait(self):
        result = self.run_netprof("-i", "0", "-u", f"127.0.0.1:{free_udp_port()}", "--wait", "1",
                                  json_name="lonely-pub", deadline_s=20)
        self.assertEqual(result.returncode, 3)
        self.assertTrue(result.stdout.startswith("Test: FAIL"), result.stdout)
        self.assertEqual(result.json["result"]["status"], "FAIL")
        self.assertTrue(result.json["result"]["problems"][0].startswith(
            "waited 1 s for 1 subscriber(s); 0 announced themselves"),
            result.json["result"]["problems"])

    def test_subscriber_without_publisher_fails_within_its_wait(self):
        result = self.run_netprof("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}",
                                  "-u", f"127.0.0.1:{free_udp_port()}", "--wait", "1",
                                  json_name="lonely-sub", deadline_s=20)
        self.assertEqual(result.returncode, 3)
        self.assertTrue(result.stdout.startswith("Test: FAIL"), result.stdout)
        self.assertIn("no publisher", result.json["result"]["problems"][0])

    def test_publisher_reports_a_subscriber_killed_mid_run(self):
        pub_port, sub_port = free_udp_port(), free_udp_port()
        pub_addr, sub_addr = f"127.0.0.1:{pub_port}", f"127.0.0.1:{sub_port}"
        subscriber = self.start_watched("-i", "1", "-u", sub_addr, "-u", pub_addr)
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "-t", "3", "--send-hz", "1000",
                                         "--warmup-time", "0.2", json_name="orphan")
        # Killed once it has measured data: killed in its handshake (a slow start under a
        # sanitizer), it would be a subscriber that never came, not one that died mid-run.
        self.wait_for_measured_data(subscriber, publisher=publisher)
        subscriber.process.kill()
        subscriber.process.wait(timeout=10)
        result = self.finish(publisher, pub_json, deadline_s=30)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("sent no final counters", " ".join(result.json["result"]["problems"]))


if __name__ == "__main__":
    unittest.main()
