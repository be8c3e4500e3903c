"""End-to-end: real publisher and subscriber processes over NNG, tcp:// and ipc:// on loopback:
ping-pong local pairs for pubsub and pair, a stream over pushpull, two subscribers over pubsub,
a stale ipc file, a stranger announcing a huge frame, and the refusals (a bad URL, pair or
pushpull with two subscribers, -s over the limit), each with one line and its documented exit
status.

ipc:// socket files live in the test's temporary directory, which cleanup removes.
"""

import os
import socket
import stat
import time
import unittest

from netprof_test_case import NetprofTestCase, free_tcp_port_run

DEADLINE_S = 30
# A generous probe timeout, so that an echo that is only late on a loaded machine is not counted
# as lost: what these tests check is that NNG carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
# The largest payload NNG carries here (NngEndpoint::max_payload_size).
MAX_PAYLOAD = 16 * 1024 * 1024


class NngTestCase(NetprofTestCase):
    def url(self, scheme, name="publisher"):
        if scheme == "tcp":
            return f"tcp://127.0.0.1:{free_tcp_port_run(3)}"
        return f"ipc://{self.ipc_path(name)}"

    def ipc_path(self, name):
        return os.path.join(self._tmp.name, name + ".ipc")

    def assert_usage_error(self, *args, mentions):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(mentions, result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def assert_ping_pong_passed(self, result, pattern):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["transport"], "nng")
        publisher = report["publisher"]
        self.assertEqual(publisher["echoes_received"], 300, result.stdout + result.stderr)
        self.assertEqual(publisher["probes_sent"], 300)
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])
        one_way = publisher["latency"]["one_way_ns"]
        self.assertGreater(one_way["p50"], 0)
        self.assertLessEqual(one_way["p50"], publisher["latency"]["rtt_ns"]["p50"])
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], publisher["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("NNG 1.", notes)
        self.assertIn(f"--nng-pattern {pattern}", notes)
        self.assertIn("NNG_OPT_RECVMAXSZ", notes)


class LocalPairTest(NngTestCase):
    def test_pubsub_ping_pong_over_tcp(self):
        result = self.run_netprof("--local-pair", "--nng", self.url("tcp"), *PING_PONG,
                                  json_name="pubsub-tcp", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "pubsub")

    def test_pubsub_ping_pong_over_ipc_leaves_no_file(self):
        result = self.run_netprof("--local-pair", "--nng", self.url("ipc"), *PING_PONG,
                                  json_name="pubsub-ipc", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "pubsub")
        self.assertFalse(os.path.exists(self.ipc_path("publisher")))
        self.assertFalse(os.path.exists(self.ipc_path("publisher") + ".back"))

    def test_pair_ping_pong_over_tcp(self):
        result = self.run_netprof("--local-pair", "--nng", self.url("tcp"), "--nng-pattern",
                                  "pair", *PING_PONG, json_name="pair-tcp",
                                  deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "pair")

    def test_pair_ping_pong_over_ipc(self):
        result = self.run_netprof("--local-pair", "--nng", self.url("ipc"), "--nng-pattern",
                                  "pair", *PING_PONG, json_name="pair-ipc",
                                  deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "pair")

    def test_default_local_pair_picks_its_own_ports(self):
        result = self.run_netprof("--local-pair", "--nng-pattern", "pubsub", *PING_PONG,
                                  json_name="default", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "pubsub")

    def test_pushpull_stream_loses_nothing(self):
        result = self.run_netprof("--local-pair", "--nng", self.url("tcp"), "--nng-pattern",
                                  "pushpull", *MODEST, json_name="pushpull",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["received"], result.json["publisher"]["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)


class TwoProcessTest(NngTestCase):
    def test_pubsub_two_subscribers_each_get_everything(self):
        url = self.url("tcp")
        publisher, pub_json = self.start("-i", "0", "--nng", url, "--subscribers", "2",
                                         "--wait", "20", *MODEST, json_name="pub")
        subscribers = [self.start("-i", i, "--nng", url, "--wait", "20", json_name=f"sub{i}")
                       for i in (1, 2)]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in subscribers]
        self.assert_each_subscriber_got_everything(pub, subs)

    def test_ipc_files_are_private_and_a_stale_one_is_replaced(self):
        path = self.ipc_path("stale")
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(path)
        stale.close()  # bound, never listening: what a killed run leaves
        url = f"ipc://{path}"
        publisher, pub_json = self.start("-i", "0", "--nng", url, "--wait", "20",
                                         *PING_PONG, json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "--nng", url, "--wait", "20",
                                          json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stderr + sub.stderr)
        self.assertIn("stale ipc socket file", " ".join(pub.json["endpoint"]["notes"]))
        self.assertFalse(os.path.exists(path), "the socket file was left behind")

    def test_socket_files_are_0600_while_listening(self):
        url = self.url("ipc")
        publisher, _ = self.start("-i", "0", "--nng", url, "--wait", "3")
        path = self.ipc_path("publisher")
        start = time.monotonic()
        while not os.path.exists(path + ".back") and time.monotonic() - start < DEADLINE_S:
            time.sleep(0.02)
        for file in (path, path + ".back"):
            self.assertEqual(stat.S_IMODE(os.stat(file).st_mode), 0o600, file)
        self.finish(publisher, None, DEADLINE_S)

    def test_live_socket_file_is_left_alone(self):
        path = self.ipc_path("live")
        self.run_beside_live_socket(path, "-i", "0", "--nng", f"ipc://{path}", "--wait", "1",
                                    deadline_s=DEADLINE_S)


class PublishersTest(NngTestCase):
    """--publishers P: publisher k's stream listens 3k ports up (its data, back and control
    channels), or at the ipc path with ".k" after it."""

    def test_a_local_group_of_two_publishers_loses_nothing(self):
        self.assert_two_publishers_lose_nothing("--nng", *MODEST, deadline_s=DEADLINE_S)

    def test_by_hand_each_publisher_takes_its_own_ports(self):
        base = free_tcp_port_run(2 * 3)
        url = f"tcp://127.0.0.1:{base}"
        publishers = [self.start("-i", str(i), "--publishers", "2", "--nng", url, "--wait", "20",
                                 *MODEST, json_name=f"pub{i}") for i in (0, 1)]
        subscriber = self.run_netprof("-i", "2", "--publishers", "2", "--nng", url, "--wait",
                                      "20", json_name="sub", deadline_s=DEADLINE_S)
        for process, path in publishers:
            published = self.finish(process, path, DEADLINE_S)
            self.assertEqual(published.returncode, 0, published.stdout + published.stderr)
        self.assertEqual(subscriber.returncode, 0, subscriber.stdout + subscriber.stderr)
        streams = subscriber.json["subscriber"]["per_publisher"]
        self.assertEqual([(s["publisher"], s["lost"], s["end_received"]) for s in streams],
                         [(0, 0, True), (1, 0, True)])
        self.assertIn(str(base + 3), streams[1]["address"])

    def test_over_ipc_each_publisher_has_its_own_files_and_leaves_none(self):
        path = self.ipc_path("streams")
        result = self.run_netprof("--local-pair", "--nng", f"ipc://{path}", "--publishers", "2",
                                  *MODEST, json_name="ipc", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for publisher in result.json["publishers"]:
            [sub] = publisher["subscribers"]
            self.assertEqual(sub["lost"], 0)
        leftovers = [name for name in os.listdir(os.path.dirname(path))
                     if name.startswith("streams")]
        self.assertEqual(leftovers, [])


class StrangerTest(NngTestCase):
    # SP over tcp: an 8-byte header naming the sender's protocol (push0 is 0x50), then each
    # message behind its 8-byte big-endian length.
    PUSH0_HEADER = bytes([0, ord("S"), ord("P"), 0, 0x00, 0x50, 0, 0])

    def test_a_huge_frame_to_the_back_channel_is_refused_and_the_run_passes(self):
        url = self.url("tcp")
        port = int(url.rsplit(":", 1)[1])
        publisher, pub_json = self.start("-i", "0", "--nng", url, "--wait", "20", *PING_PONG,
                                         json_name="pub")
        start = time.monotonic()
        stranger = None
        while stranger is None and time.monotonic() - start < DEADLINE_S:
            try:
                stranger = socket.create_connection(("127.0.0.1", port + 1), timeout=5)
            except OSError:
                time.sleep(0.05)
        self.assertIsNotNone(stranger, "the back channel never listened")
        with stranger:
            stranger.sendall(self.PUSH0_HEADER)
            # 1 GiB announced, a few bytes sent: NNG must close before allocating it.
            stranger.sendall((1 << 30).to_bytes(8, "big") + b"N" * 64)
            # The publisher's SP header, then end of stream: it closed on us (a timeout here
            # would mean it is still reading the gigabyte).
            received = b""
            while chunk := stranger.recv(64):
                received += chunk
            self.assertEqual(received[:4], b"\x00SP\x00")
            subscriber, sub_json = self.start("-i", "1", "--nng", url, "--wait", "20",
                                              json_name="sub")
            pub = self.finish(publisher, pub_json, DEADLINE_S)
            sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stderr + sub.stderr)
        self.assertEqual(pub.json["publisher"]["echoes_received"], 300)


class SlotTest(NngTestCase):
    """Issue 30, item 2: pair and push/pull carry one subscriber; a raw SP socket that dials
    first must not keep it out, key or not."""
    # The protocol a stranger claims: the peer the publisher's data socket takes.
    PAIR0 = 0x10
    PULL0 = 0x51

    def hold_the_data_slot(self, port, protocol):
        start = time.monotonic()
        while time.monotonic() - start < DEADLINE_S:
            try:
                stranger = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                time.sleep(0.05)
        else:
            self.fail("the publisher never listened")
        self.addCleanup(stranger.close)
        stranger.sendall(bytes([0, ord("S"), ord("P"), 0, 0, protocol, 0, 0]))
        self.assertEqual(stranger.recv(8)[:4], b"\x00SP\x00")  # NNG took it: it holds the slot
        return stranger

    def assert_stranger_gave_way(self, pattern, protocol):
        url = self.url("tcp")
        publisher, pub_json = self.start("-i", "0", "--nng", url, "--nng-pattern", pattern,
                                         "--wait", "20", *MODEST, json_name="pub")
        self.hold_the_data_slot(int(url.rsplit(":", 1)[1]), protocol)
        subscriber, sub_json = self.start("-i", "1", "--nng", url, "--nng-pattern", pattern,
                                          "--wait", "20", json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + sub.stdout)
        self.assertEqual(sub.returncode, 0, sub.stdout)
        self.assertIn("closed 1 connection(s) that held the subscriber's place unproven",
                      " ".join(pub.json["endpoint"]["notes"]))
        self.assertEqual(pub.json["subscribers"][0]["lost"], 0)

    def test_a_stranger_holding_the_pair_slot_gives_way_to_the_subscriber(self):
        self.assert_stranger_gave_way("pair", self.PAIR0)

    def test_a_stranger_holding_the_pushpull_slot_gives_way_to_the_subscriber(self):
        self.assert_stranger_gave_way("pushpull", self.PULL0)


class CommandLineTest(NngTestCase):
    def test_bad_urls(self):
        self.assert_usage_error("-i", "0", "--nng", "http://127.0.0.1:5555",
                                mentions="expected tcp://host:port or ipc:///path")
        self.assert_usage_error("-i", "0", "--nng", "tcp://127.0.0.1", mentions="--nng")
        self.assert_usage_error("-i", "0", "--nng", "tcp://127.0.0.1:0", mentions="port other")
        self.assert_usage_error("-i", "0", "--nng", "ipc://relative.ipc", mentions="absolute")
        self.assert_usage_error("-i", "0", "--nng", "tcp://127.0.0.1:65535",
                                mentions="next port")

    def test_no_url(self):
        self.assert_usage_error("-i", "0", "--nng-pattern", "pair", mentions="--nng tcp://")

    def test_bad_pattern(self):
        self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "--nng-pattern", "bus",
                                mentions="--nng-pattern")

    def test_pair_takes_one_subscriber(self):
        self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "--nng-pattern", "pair",
                                "--subscribers", "2", mentions="takes exactly one subscriber")

    def test_pushpull_takes_one_subscriber_and_says_why(self):
        self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "--nng-pattern",
                                "pushpull", "--subscribers", "3", mentions="count the rest as loss")
        self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "--nng-pattern",
                                "pushpull", "--subscribers", "3", mentions="--fanout round-robin")

    def test_payload_over_the_limit(self):
        self.assert_usage_error("-i", "0", "--nng", self.url("tcp"), "-s", MAX_PAYLOAD + 1,
                                mentions="too large for nng")


if __name__ == "__main__":
    unittest.main()
