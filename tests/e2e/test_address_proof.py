"""End-to-end: strangers who say hello to a real UDP publisher (issue 18, "Unknown sender").

A hello whose sender has not proven its address gets one challenge: a bare header, no larger
than the hello, carrying no run id, sent to that address alone (include/netprof/wire.hpp,
"Address proof"). Until the cookie comes back from the address it went to, the sender is no
subscriber, learns nothing of the run and is sent nothing else. The review's cases: a phantom
subscriber counted toward --subscribers (stream and ping-pong), the whole data stream sent to
an address that asked once (amplification), and a flood of ids.
"""

import socket
import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port
from test_hostile_wire import CHALLENGE, HEADER, HELLO, header

DEADLINE_S = 30
PACED = ["--send-hz", "1000", "-t", "2", "--warmup-time", "0.5"]


class Stranger:
    """A socket of the test's own that says hello and records every byte sent back."""

    def __init__(self, test):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        test.addCleanup(self.sock.close)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.bytes_sent = 0
        self.received = []  # (kind, size, run_id); kind None when not a netprof header

    def hello(self, port, sender, tag=0x5742):
        datagram = header(HELLO, sender=sender, record_count=tag)
        self.sock.sendto(datagram, ("127.0.0.1", port))
        self.bytes_sent += len(datagram)

    def drain(self):
        while True:
            try:
                datagram = self.sock.recv(70000)
            except BlockingIOError:
                return
            fields = HEADER.unpack_from(datagram) if len(datagram) >= HEADER.size else None
            self.received.append((fields[2] if fields else None, len(datagram),
                                  fields[5] if fields else None))

    def address(self):
        host, port = self.sock.getsockname()
        return f"{host}:{port}"

    def bytes_received(self):
        return sum(size for _, size, _ in self.received)


class AddressProofTest(NetprofTestCase):
    def start_publisher(self, *mode_args, subscribers="1"):
        self.pub_port = free_udp_port()
        self.pub_addr = f"127.0.0.1:{self.pub_port}"
        self.publisher, self.pub_json = self.start(
            "-i", "0", "-u", self.pub_addr, "--subscribers", subscribers, "--wait", "20",
            *mode_args, json_name="pub")
        self.wait_until_bound()

    def wait_until_bound(self):
        # A hello sent before the publisher's socket is bound is lost (a slow start: a
        # sanitizer build, a loaded machine): a probe of its own says hello until challenged.
        probe = Stranger(self)
        deadline = time.monotonic() + 10
        while not probe.received and time.monotonic() < deadline:
            probe.hello(self.pub_port, sender=999)
            time.sleep(0.05)
            probe.drain()
        self.assertTrue(probe.received, "the publisher never answered a hello")

    def start_subscriber(self):
        self.subscriber, self.sub_json = self.start(
            "-i", "1", "-u", f"127.0.0.1:{free_udp_port()}", "-u", self.pub_addr, "--wait", "20",
            json_name="sub")

    def finish_pair(self):
        pub = self.finish(self.publisher, self.pub_json, deadline_s=DEADLINE_S)
        sub = self.finish(self.subscriber, self.sub_json, deadline_s=DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual([entry["id"] for entry in pub.json["subscribers"]], [1])
        own = sub.json["subscriber"]
        self.assertEqual(own["received"], pub.json["publisher"]["messages_sent"])
        self.assertEqual(own["lost"], 0)
        return pub, sub

    def assert_only_challenges(self, stranger, hellos):
        # Never more bytes than it sent, never the run id, never anything but a challenge.
        stranger.drain()
        self.assertTrue(stranger.received, "no challenge came back")
        self.assertLessEqual(len(stranger.received), hellos)
        self.assertLessEqual(stranger.bytes_received(), stranger.bytes_sent)
        for kind, size, run_id in stranger.received:
            self.assertEqual((kind, size, run_id), (CHALLENGE, HEADER.size, 0))

    def phantom_before_the_real_subscriber(self, mode_args):
        # Was: the stranger became subscriber 2 and took the one place of --subscribers 1; the
        # publisher started without the real one, which joined late, and the run failed.
        self.start_publisher(*mode_args)
        stranger = Stranger(self)
        stranger.hello(self.pub_port, sender=2)
        time.sleep(0.3)
        stranger.hello(self.pub_port, sender=2)
        self.start_subscriber()
        pub, sub = self.finish_pair()
        self.assertFalse(pub.json["subscribers"][0]["joined_late"])
        self.assertFalse(sub.json["subscriber"]["joined_late"])
        self.assert_only_challenges(stranger, hellos=2)

    def test_phantom_subscriber_in_a_stream(self):
        self.phantom_before_the_real_subscriber(PACED)

    def test_phantom_subscriber_in_ping_pong(self):
        self.phantom_before_the_real_subscriber(["--mode", "ping-pong", *PACED])

    def test_phantom_during_the_warm_up_of_ping_pong(self):
        self.start_publisher("--mode", "ping-pong", "--send-hz", "1000", "-t", "1",
                             "--warmup-time", "1.5", subscribers="1")
        self.start_subscriber()
        time.sleep(0.5)  # the pair is in its warm-up by now
        stranger = Stranger(self)
        stranger.hello(self.pub_port, sender=2)
        pub, _ = self.finish_pair()
        self.assert_only_challenges(stranger, hellos=1)

    def test_one_hello_does_not_bring_the_data_stream(self):
        # Was: 795 MB from one 60-byte datagram at -s 60000, sent to an address that never
        # asked (any source address can be forged; here the stranger is that address).
        self.start_publisher("-s", "8000", *PACED)
        self.start_subscriber()
        time.sleep(1.0)  # measuring by now
        stranger = Stranger(self)
        stranger.hello(self.pub_port, sender=7)
        pub, _ = self.finish_pair()
        self.assert_only_challenges(stranger, hellos=1)
        self.assertNotIn(stranger.address(), pub.json["endpoint"]["peer_addresses"])

    def test_a_flood_of_ids_adds_no_peer(self):
        # Was: 1,100 hellos added 1,024 peers and cut the send rate to a fifth, SUCCESS.
        self.start_publisher(*PACED)
        self.start_subscriber()
        time.sleep(1.0)
        stranger = Stranger(self)
        for sender in range(100, 1200):
            stranger.hello(self.pub_port, sender=sender)
            if sender % 100 == 0:
                stranger.drain()  # keep its receive buffer from overflowing
        pub, _ = self.finish_pair()
        self.assertGreaterEqual(pub.json["publisher"]["challenges_sent"], 1100)
        self.assertEqual(pub.json["rejected"], 0)
        self.assert_only_challenges(stranger, hellos=1100)
        self.assertNotIn(stranger.address(), pub.json["endpoint"]["peer_addresses"])


class IdClashTest(NetprofTestCase):
    def test_two_live_subscribers_with_one_id_are_named(self):
        # Was: reported as a restart, or as a plain shortfall.
        pub_port = free_udp_port()
        pub_addr = f"127.0.0.1:{pub_port}"
        publisher, pub_json = self.start(
            "-i", "0", "-u", pub_addr, "--wait", "20", "--send-hz", "1000", "-t", "3",
            json_name="pub")
        first, first_json = self.start(
            "-i", "1", "-u", f"127.0.0.1:{free_udp_port()}", "-u", pub_addr, "--wait", "20",
            json_name="first")
        time.sleep(1.0)  # measuring by now
        second, second_json = self.start(
            "-i", "1", "-u", f"127.0.0.1:{free_udp_port()}", "-u", pub_addr, "--wait", "20",
            json_name="second")
        pub = self.finish(publisher, pub_json, deadline_s=DEADLINE_S)
        subs = [self.finish(first, first_json, deadline_s=DEADLINE_S),
                self.finish(second, second_json, deadline_s=DEADLINE_S)]
        self.assertEqual(pub.returncode, 1, pub.stdout + pub.stderr)
        [entry] = pub.json["subscribers"]
        self.assertTrue(entry["id_clash"], entry)
        self.assertIn("two live processes use -i 1", pub.stdout)
        # The first subscriber saw the publisher answer the second under its id.
        self.assertIn("another live process uses -i 1", subs[0].stdout + subs[1].stdout)


if __name__ == "__main__":
    unittest.main()
