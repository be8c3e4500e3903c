"""End-to-end: real publisher and subscriber processes over ZeroMQ, tcp:// and ipc:// on loopback.

ipc:// socket files live in the test's temporary directory, which cleanup removes.
"""

import os
import socket
import time
import unittest

from netprof_test_case import NetprofTestCase

# A modest rate that loopback carries without loss on a loaded 2-core machine.
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
DEADLINE_S = 30


def free_tcp_port():
    """A port the kernel just gave out; free again when this returns (a small race we accept)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ZmqTestCase(NetprofTestCase):
    def endpoint(self, scheme, name):
        if scheme == "tcp":
            return f"tcp://127.0.0.1:{free_tcp_port()}"
        return f"ipc://{os.path.join(self._tmp.name, name + '.ipc')}"

    def ipc_path(self, name):
        return os.path.join(self._tmp.name, name + ".ipc")

    def assert_no_loss(self, pub, subscribers):
        sent = pub.json["publisher"]["messages_sent"]
        self.assertGreater(sent, 0)
        self.assertEqual(len(pub.json["subscribers"]), len(subscribers))
        for summary in pub.json["subscribers"]:
            self.assertEqual(summary["received"], sent, summary)
            self.assertEqual(summary["lost"], 0, summary)
            self.assertFalse(summary["joined_late"], summary)
        for sub in subscribers:
            self.assertEqual(sub.returncode, 0, sub.stderr)
            self.assertTrue(sub.json["subscriber"]["end_received"])
            self.assertEqual(sub.json["subscriber"]["received"], sent)
            self.assertEqual(sub.json["run_id"], pub.json["run_id"])

    def run_fan_out(self, scheme, count, *publisher_args, wait_before_subscribers=0.0):
        """Publisher bound at its endpoint, `count` subscribers each binding their own and
        connecting to the publisher's; returns (publisher, [subscribers]) once all finished."""
        pub_endpoint = self.endpoint(scheme, "publisher")
        publisher, pub_json = self.start("-i", "0", "--zmq", pub_endpoint, "--subscribers", count,
                                         "--wait", "20", *publisher_args, json_name="pub")
        if wait_before_subscribers:
            time.sleep(wait_before_subscribers)  # the publisher is waiting for hellos by now
        started = []
        for i in range(1, count + 1):
            # Over tcp each subscriber's own endpoint takes any free port as it binds: a port
            # picked here first could be taken by a test running beside this one before then.
            own = "tcp://127.0.0.1:*" if scheme == "tcp" else self.endpoint(scheme, f"subscriber{i}")
            started.append(self.start("-i", i, "--zmq", own, "--zmq", pub_endpoint,
                                      "--wait", "20", json_name=f"sub{i}"))
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in started]
        # Each subscriber's own words too: a publisher that missed one cannot say why.
        said = "".join(f"\n--- subscriber {i}: exit {sub.returncode}\n{sub.stderr}"
                       for i, sub in enumerate(subs, 1))
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr + said)
        return pub, subs


class LocalPairTest(ZmqTestCase):
    def test_tcp_local_pair_loses_nothing_and_states_the_high_water_mark(self):
        result = self.run_netprof("--local-pair", "--zmq", "tcp://127.0.0.1:*", *MODEST,
                                  json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["transport"], "zmq")
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], report["publisher"]["messages_sent"])
        self.assertEqual(report["publisher"]["echoes_received"], report["publisher"]["probes_sent"])
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("high-water mark", notes)
        self.assertIn("drops silently", notes)
        self.assertIn("TCP_NODELAY", notes)
        self.assertGreaterEqual(report["endpoint"]["max_message_size"], 16 * 1024 * 1024 + 52)

    def test_ipc_local_pair_chooses_its_own_paths_and_leaves_none(self):
        before = set(os.listdir("/tmp"))
        result = self.run_netprof("--local-pair", "--zmq", "ipc://*", "--mode", "ping-pong",
                                  "--count", "200", "--warmup-count", "20", json_name="ipc-pair",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.json["publisher"]["echoes_received"], 200)
        [bound] = result.json["endpoint"]["local_addresses"]
        self.assertTrue(bound.startswith("ipc://"), bound)
        self.assertFalse(os.path.exists(bound[len("ipc://"):]), "the socket file was left behind")
        self.assertFalse({n for n in set(os.listdir("/tmp")) - before if n.startswith("netprof-zmq")})


class FanOutTest(ZmqTestCase):
    def test_tcp_one_subscriber(self):
        pub, subs = self.run_fan_out("tcp", 1, *MODEST)
        self.assert_no_loss(pub, subs)

    def test_tcp_three_subscribers(self):
        pub, subs = self.run_fan_out("tcp", 3, *MODEST)
        self.assert_no_loss(pub, subs)
        self.assertGreater(pub.json["publisher"]["echoes_received"], 0)

    def test_ipc_one_subscriber(self):
        pub, subs = self.run_fan_out("ipc", 1, *MODEST)
        self.assert_no_loss(pub, subs)

    def test_ipc_three_subscribers(self):
        pub, subs = self.run_fan_out("ipc", 3, *MODEST)
        self.assert_no_loss(pub, subs)
        for name in ["publisher", "subscriber1", "subscriber2", "subscriber3"]:
            self.assertFalse(os.path.exists(self.ipc_path(name)), name + "'s socket file is left")

    def test_subscriber_started_after_the_publisher_misses_nothing(self):
        # No warm-up: the first measured message follows the hello at once, which is when a
        # subscription still on its way (ZeroMQ's slow joiner) would lose it.
        pub, subs = self.run_fan_out("tcp", 1, "--count", "3000", "--send-hz", "20000",
                                     "--warmup-count", "0", wait_before_subscribers=1.0)
        self.assert_no_loss(pub, subs)
        self.assertEqual(subs[0].json["subscriber"]["received"], 3000)


class LargeMessageTest(ZmqTestCase):
    def test_4_mib_messages_over_ipc(self):
        result = self.run_netprof("--local-pair", "--zmq", "ipc://*", "-s", 4 * 1024 * 1024,
                                  "--count", "50", "--warmup-count", "2", "-q", "300000000",
                                  json_name="large", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["received"], 50)
        self.assertEqual(subscriber["payload_bytes"], 50 * 4 * 1024 * 1024)

    def test_16_mib_messages_over_tcp(self):
        result = self.run_netprof("--local-pair", "--zmq", "tcp://127.0.0.1:*", "-s", 16777216,
                                  "--count", "20", "--warmup-count", "2", "--zmq-nodrop",
                                  json_name="huge", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["received"], 20)
        self.assertEqual(subscriber["lost"], 0)


class IpcFileTest(ZmqTestCase):
    def test_stale_socket_file_is_replaced(self):
        path = self.ipc_path("stale")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as crashed:
            crashed.bind(path)  # closed without unlinking, as a killed process leaves it
        self.assertTrue(os.path.exists(path))
        result = self.run_netprof("--local-pair", "--zmq", f"ipc://{path}", *MODEST,
                                  json_name="stale", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("stale socket file", " ".join(result.json["endpoint"]["notes"]))

    def test_live_socket_file_is_left_alone(self):
        path = self.ipc_path("live")
        result = self.run_beside_live_socket(path, "-i", "0", "--zmq", f"ipc://{path}", "--wait",
                                             "1", deadline_s=DEADLINE_S)
        self.assertIn("address in use", result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def test_a_file_that_is_not_a_socket_is_never_replaced(self):
        path = self.ipc_path("regular")
        with open(path, "w") as f:
            f.write("precious")
        result = self.run_netprof("-i", "0", "--zmq", f"ipc://{path}", "--wait", "1",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("not a socket", result.stderr)
        with open(path) as f:
            self.assertEqual(f.read(), "precious")

    def test_missing_directory_is_a_transport_error(self):
        missing = os.path.join(self._tmp.name, "no-such-dir", "x.ipc")
        result = self.run_netprof("-i", "0", "--zmq", f"ipc://{missing}", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn(f"ipc://{missing}", result.stderr)


class CommandLineTest(ZmqTestCase):
    def assert_usage_error(self, *args, mentions):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(mentions, result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def test_unknown_scheme(self):
        self.assert_usage_error("-i", "0", "--zmq", "pgm://127.0.0.1:5555", mentions="tcp://")
        self.assert_usage_error("-i", "0", "--zmq", "http://127.0.0.1:5555",
                                mentions="unknown scheme")

    def test_inproc_is_refused_with_the_reason(self):
        self.assert_usage_error("-i", "0", "--zmq", "inproc://netprof", mentions="separate processes")

    def test_malformed_endpoints(self):
        self.assert_usage_error("-i", "0", "--zmq", "127.0.0.1:5555", mentions="tcp://host:port")
        self.assert_usage_error("-i", "0", "--zmq", "tcp://127.0.0.1", mentions="port is missing")
        self.assert_usage_error("-i", "0", "--zmq", "tcp://127.0.0.1:99999", mentions="0..65535")
        self.assert_usage_error("-i", "1", "--zmq", "tcp://127.0.0.1:5555", "--zmq",
                                "tcp://127.0.0.1:*", mentions="real port")

    def test_address_in_use(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            endpoint = f"tcp://127.0.0.1:{taken.getsockname()[1]}"
            result = self.run_netprof("-i", "0", "--zmq", endpoint, "--wait", "1",
                                      deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn(endpoint, result.stderr)
        self.assertIn("in use", result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def test_help_describes_the_zmq_options(self):
        result = self.run_netprof("--help", "zmq", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0)
        for text in ["--zmq endpoint", "inproc://", "--zmq-io-threads", "--zmq-nodrop"]:
            self.assertIn(text, result.stdout)


if __name__ == "__main__":
    unittest.main()
