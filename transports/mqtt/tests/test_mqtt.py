"""End-to-end: real publisher and subscriber processes over MQTT through a Mosquitto broker on
loopback: a local-pair ping-pong with the broker netprof starts (and stops), a stream at QoS 1 that
loses nothing, a broker the test starts itself (the user's), a broker that is absent, whose host
drops the connection, or dies mid-run (exit status 3 with a clear message, never a hang), and the refusals of a wildcard topic
prefix and of a QoS that contradicts --mqtt-qos (exit status 2).

Every process runs under a deadline and is killed by PID in cleanup, the brokers this file starts
included.
"""

import glob
import os
import shutil
import socket
import time
import unittest

from netprof_test_case import NetprofTestCase, accepts, free_port, unanswered_tcp_port

DEADLINE_S = 40
# A generous probe timeout, so that an echo that is only late on a loaded machine is not counted
# as lost: what these tests check is that the broker carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]


def broker_folders(parent):
    """The folders netprof's own brokers use under `parent`, which it must remove when it stops
    them."""
    return set(glob.glob(os.path.join(parent, "netprof-mqtt-*")))


@unittest.skipUnless(shutil.which("mosquitto"), "mosquitto is not installed")
class MqttTestCase(NetprofTestCase):
    def start_broker(self):
        """A mosquitto of the test's own on a free loopback port, as a user's broker; killed by
        PID in cleanup. Returns (process, port)."""
        port = free_port(socket.SOCK_STREAM)
        config = os.path.join(self._tmp.name, "mosquitto.conf")
        with open(config, "w", encoding="utf-8") as file:
            file.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        os.chmod(config, 0o644)
        return self.start_listening_server(["mosquitto", "-c", config], port, "mosquitto"), port

    def assert_ping_pong_passed(self, result):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["transport"], "mqtt")
        publisher = report["publisher"]
        self.assertEqual(publisher["echoes_received"], 300, result.stdout + result.stderr)
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], publisher["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
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
        self.assert_ping_pong_passed(result)
        self.assertEqual(result.json["endpoint"]["qos"]["reliability"], "best-effort")
        self.assertEqual(broker_folders(self._tmp.name), set(),
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
        self.assert_ping_pong_passed(result)
        self.assertIsNone(broker.poll(), "netprof stopped a broker it did not start")

    def test_two_processes_with_their_own_topic_prefix(self):
        _, port = self.start_broker()
        common = ["--mqtt", f"127.0.0.1:{port}", "--mqtt-topic", "e2e/run-1", "--mqtt-qos", "1"]
        subscriber, _ = self.start("-i", "1", *common)
        result = self.run_netprof("-i", "0", *common, *PING_PONG, json_name="processes",
                                  deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result)
        self.assertEqual(self.finish(subscriber, deadline_s=DEADLINE_S).returncode, 0)


class BrokerFailureTest(MqttTestCase):
    def test_absent_broker_is_a_runtime_error_at_once(self):
        port = free_port(socket.SOCK_STREAM)  # nothing listens there
        started = time.monotonic()
        result = self.run_netprof("-i", "0", "--mqtt", f"127.0.0.1:{port}", "-t", "1",
                                  deadline_s=15)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"cannot reach the MQTT broker at 127.0.0.1:{port}", result.stderr)
        self.assertIn("refused", result.stderr)
        self.assertLess(time.monotonic() - started, 10)

    def test_broker_host_that_drops_the_connection_is_given_up_on_in_bounded_time(self):
        # A blocking connect would wait for TCP's two minutes; netprof gives up after 5 s.
        with unanswered_tcp_port() as port:
            started = time.monotonic()
            result = self.run_netprof("-i", "1", "--mqtt", f"127.0.0.1:{port}", deadline_s=20)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the MQTT broker at 127.0.0.1:{port} did not accept the TCP connection "
                      "within 5000 ms", result.stderr)
        self.assertLess(time.monotonic() - started, 15)

    def test_broker_that_dies_mid_run_ends_both_roles_with_status_3(self):
        broker, port = self.start_broker()
        common = ["--mqtt", f"127.0.0.1:{port}"]
        subscriber = self.start_watched("-i", "1", *common)
        publisher, path = self.start("-i", "0", *common, "-t", "20", "--send-hz", "1000",
                                     json_name="dies")
        self.wait_for_measured_data(subscriber, publisher=publisher)  # mid-run, not in the handshake
        broker.kill()
        broker.wait(timeout=10)
        result = self.finish(publisher, path, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the connection to the MQTT broker at 127.0.0.1:{port} was lost",
                      result.stdout)
        self.assertEqual(self.finish_watched(subscriber, deadline_s=DEADLINE_S).returncode, 3)


class RefusalTest(MqttTestCase):
    def test_wildcard_topic_prefix_is_refused(self):
        for prefix in ("runs/#", "a/+/b"):
            result = self.run_netprof("--local-pair", "--mqtt", "--mqtt-topic", prefix,
                                      deadline_s=15)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
            self.assertIn("wildcards + and #", result.stderr)

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
