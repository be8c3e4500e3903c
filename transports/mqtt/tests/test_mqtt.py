"""End-to-end: real publisher and subscriber processes over MQTT through a Mosquitto broker on
loopback: a local-pair ping-pong with the broker netprof starts (and stops), a stream at QoS 1 that
loses nothing, a broker the test starts itself (the user's), a broker that is absent, whose host
drops the connection, or dies mid-run (exit status 3 with a clear message, never a hang), and the refusals of a wildcard topic
prefix and of a QoS that contradicts --mqtt-qos (exit status 2).

Every process runs under a deadline and is killed by PID in cleanup, the brokers this file starts
included.
"""

import os
import shutil
import socket
import unittest

from broker_test_case import DEADLINE_S, PING_PONG, BrokerTestCase, owned_folders
from netprof_test_case import accepts, free_port

MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]


@unittest.skipUnless(shutil.which("mosquitto"), "mosquitto is not installed")
class MqttTestCase(BrokerTestCase):
    OPTION = "--mqtt"
    BROKER = "the MQTT broker"

    def start_broker(self):
        """A mosquitto of the test's own on a free loopback port, as a user's broker; killed by
        PID in cleanup. Returns (process, port)."""
        port = free_port(socket.SOCK_STREAM)
        config = os.path.join(self._tmp.name, "mosquitto.conf")
        with open(config, "w", encoding="utf-8") as file:
            file.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        os.chmod(config, 0o644)
        return self.start_listening_server(["mosquitto", "-c", config], port, "mosquitto"), port

    def assert_ping_pong_passed_through_mosquitto(self, result):
        report = self.assert_ping_pong_passed(result, "mqtt", 300)
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("mosquitto version 2.", notes)
        self.assertIn("libmosquitto 2.", notes)
        self.assertIn("no message crosses a thread", notes)


class LocalPairTest(MqttTestCase):
    def test_two_publishers_each_under_a_topic_prefix_of_their_own(self):
        # Through one broker, publisher 1's topics under PREFIX.1; QoS 1, so that a loaded
        # machine loses nothing.
        self.assert_two_publishers_lose_nothing("--mqtt", "--mqtt-qos", "1", *MODEST,
                                                deadline_s=DEADLINE_S)

    def test_ping_pong_through_its_own_broker_which_it_stops(self):
        # The broker's folder goes where TMPDIR says: this test's own, so that brokers of tests
        # running beside it (the contract's) are not counted.
        self.use_own_tmpdir()
        result = self.run_netprof("--local-pair", "--mqtt", *PING_PONG, json_name="own",
                                  deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed_through_mosquitto(result)
        self.assertEqual(result.json["endpoint"]["qos"]["reliability"], "best-effort")
        self.assertEqual(owned_folders(self._tmp.name, "mqtt"), set(),
                         "the broker's folder was left behind")
        broker = result.json["endpoint"]["peer_addresses"][0].split()[-1]
        port = int(broker.rsplit(":", 1)[1])
        self.assertFalse(accepts(port), "the broker netprof started still runs")

    def test_stream_at_qos_1_loses_nothing(self):
        result = self.run_netprof("--local-pair", "--mqtt", "--reliability", "reliable",
                                  *MODEST, json_name="qos1", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["qos"]["reliability"], "reliable")
        self.assertIn("MQTT QoS 1", report["endpoint"]["qos"]["meaning"])
        [subscriber] = report["subscribers"]
        self.assertGreater(report["publisher"]["messages_sent"], 0)
        self.assertEqual(subscriber["received"], report["publisher"]["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
        self.assertEqual(subscriber["duplicates"], 0)
        # Nagle's algorithm left on (client or broker) holds a stream's messages for delayed ACKs,
        # tens of ms; a loaded VM keeps the p50 well under a millisecond.
        self.assertLess(report["publisher"]["latency"]["one_way_ns"]["p50"], 10e6)


class UsersBrokerTest(MqttTestCase):
    def test_local_pair_uses_the_broker_it_is_given_and_leaves_it_running(self):
        broker, port = self.start_broker()
        result = self.run_netprof("--local-pair", "--mqtt", f"127.0.0.1:{port}", *PING_PONG,
                                  json_name="users", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed_through_mosquitto(result)
        self.assertIsNone(broker.poll(), "netprof stopped a broker it did not start")

    def test_two_processes_with_their_own_topic_prefix(self):
        _, port = self.start_broker()
        common = ["--mqtt", f"127.0.0.1:{port}", "--mqtt-topic", "e2e/run-1", "--mqtt-qos", "1"]
        subscriber, _ = self.start("-i", "1", *common)
        result = self.run_netprof("-i", "0", *common, *PING_PONG, json_name="processes",
                                  deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed_through_mosquitto(result)
        self.assertEqual(self.finish(subscriber, deadline_s=DEADLINE_S).returncode, 0)


class BrokerFailureTest(MqttTestCase):
    def test_absent_broker_is_a_runtime_error_at_once(self):
        self.assert_absent_broker_is_a_runtime_error_at_once()

    def test_broker_host_that_drops_the_connection_is_given_up_on_in_bounded_time(self):
        self.assert_dropping_host_is_given_up_on_in_bounded_time(
            "the MQTT broker at 127.0.0.1:{port} did not accept the TCP connection within 5000 ms")

    def test_broker_that_dies_mid_run_ends_both_roles_with_status_3(self):
        self.assert_broker_dying_mid_run_ends_both_roles_with_status_3(*self.start_broker())


class RefusalTest(MqttTestCase):
    def test_wildcard_topic_prefix_is_refused(self):
        for prefix in ("runs/#", "a/+/b"):
            self.assert_refused_in_one_line(["--local-pair", "--mqtt", "--mqtt-topic", prefix], 2,
                                            "wildcards + and #")

    def test_reliability_contradicting_mqtt_qos_is_refused(self):
        result = self.run_netprof("--local-pair", "--mqtt", "--mqtt-qos", "0", "--reliability",
                                  "reliable", deadline_s=15)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("contradicts --mqtt-qos 0", result.stderr)

    def test_history_depth_is_refused(self):
        result = self.run_netprof("--local-pair", "--mqtt", "--history", "keep-last:8",
                                  deadline_s=15)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--history keep-last:8 is not available on mqtt", result.stderr)


if __name__ == "__main__":
    unittest.main()
