"""What transports/tcp/tests/test_tcp.py and test_uds.py share: a publisher and subscribers as separate
processes over one stream transport, the checks a fan-out run must pass, and a fake publisher
that stops in the middle of a message. Loopback and temporary directories only."""

import os
import socket
import threading
import time

from netprof_test_case import NetprofTestCase

# A modest rate and short phases: a loaded 2-core machine carries them without loss.
MODEST = ["--send-hz", "2000", "-t", "0.3", "--warmup-time", "0.1"]
DEADLINE_S = 30


def frame(length):
    """netprof's frame header over a byte stream: 'np', two zero bytes, the length (LE)."""
    return b"np\0\0" + length.to_bytes(4, "little")


class StreamTestCase(NetprofTestCase):
    def run_fan_out(self, publisher_args, subscriber_args, count=2, extra=()):
        """A publisher and `count` subscribers; returns (publisher, [subscribers]) finished."""
        publisher, pub_json = self.start("-i", "0", *publisher_args, "--subscribers", count,
                                         "--wait", "10", *MODEST, *extra, json_name="pub")
        started = [self.start("-i", i, *subscriber_args, "--wait", "10", *extra,
                              json_name=f"sub{i}") for i in range(1, count + 1)]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in started]
        said = "".join(f"\n--- subscriber {i}: exit {sub.returncode}\n{sub.stdout}{sub.stderr}"
                       for i, sub in enumerate(subs, 1))
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr + said)
        return pub, subs

    def assert_each_subscriber_got_everything_with_its_own_latency(self, pub, subs):
        sent = pub.json["publisher"]["messages_sent"]
        self.assertGreater(sent, 0)
        self.assertEqual(len(pub.json["subscribers"]), len(subs))
        for summary in pub.json["subscribers"]:
            self.assertEqual(summary["received"], sent, summary)
            self.assertEqual(summary["lost"], 0, summary)
            self.assert_latency_ordered(summary["latency"]["rtt_ns"])
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
            self.assertEqual(sub.json["subscriber"]["received"], sent)

    def fake_publisher_cutting_a_message(self, listener):
        """Accepts one subscriber on `listener`, reads its hello, sends 40 bytes of a 116-byte
        message and closes: a publisher that dies in the middle of a message."""
        def serve():
            listener.settimeout(DEADLINE_S)
            try:
                connection, _ = listener.accept()
                with connection:
                    connection.settimeout(DEADLINE_S)
                    connection.recv(4096)
                    connection.sendall(frame(116) + b"y" * 32)
            except OSError:
                pass
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        self.addCleanup(thread.join, DEADLINE_S)

    def assert_cut_message_fails_the_subscriber(self, result):
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn("the transport failed while receiving", result.stdout)
        self.assertIn("closed in the middle of a message (32 of its 116 bytes had come)",
                      result.stdout)

    def connect_once_listening(self, family, address, kind=socket.SOCK_STREAM):
        """A connection to `address`, tried until a process listens there (bounded)."""
        give_up = time.monotonic() + DEADLINE_S
        while True:
            connection = socket.socket(family, kind)
            try:
                connection.connect(address)
                return connection
            except (ConnectionRefusedError, FileNotFoundError):
                connection.close()
                if time.monotonic() > give_up:
                    raise
                time.sleep(0.01)  # polling for the listener, not standing in for a wait

    def wait_for_file(self, path):
        """Returns once `path` exists (a publisher's socket file), bounded by the deadline."""
        give_up = time.monotonic() + DEADLINE_S
        while not os.path.exists(path):
            self.assertLess(time.monotonic(), give_up, f"{path} never appeared")
            time.sleep(0.01)  # polling for the file, not standing in for a wait

    def strangers(self, family, address, kind=socket.SOCK_STREAM):
        """Three connections that break the framing, once a publisher listens at `address`: a
        huge length, HTTP, half a message that ends; open until cleanup (the last one closes at
        once)."""
        for payload in [frame(0xFFFFFFFF), b"GET / HTTP/1.1\r\n\r\n"]:
            stranger = self.connect_once_listening(family, address, kind)
            self.addCleanup(stranger.close)
            stranger.sendall(payload)
        with socket.socket(family, kind) as leaving:
            leaving.connect(address)
            leaving.sendall(frame(64) + b"abc")

    def assert_usage_error(self, *args, mentions):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(mentions, result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        self.assertTrue(result.stderr.startswith("netprof: "), result.stderr)
        return result
