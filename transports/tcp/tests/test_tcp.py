"""End-to-end: raw TCP (issue 20). A local pair, two subscribers fanned out to with a latency
figure each, ping-pong with Nagle on, strangers that break the framing, a publisher that dies
mid-message, and the command line's refusals."""

import socket
import unittest

from netprof_test_case import NETPROF, sanitized
from netprof_harness import wire_header_bytes  # on the path netprof_test_case set up
from netprof_processes import free_port
from stream_test_case import DEADLINE_S, MODEST, StreamTestCase


class TcpTest(StreamTestCase):
    def address(self):
        return f"127.0.0.1:{free_port(socket.SOCK_STREAM)}"

    def test_local_pair_loses_nothing_and_reports_the_granted_buffers(self):
        result = self.run_netprof("--local-pair", "--tcp-nodelay", "on", "-q", "300000", *MODEST,
                                  json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["transport"], "tcp")
        self.assertEqual(report["endpoint"]["buffer"],
                         {"requested": 300000, "granted_send": 300000, "granted_receive": 300000})
        self.assertIn("TCP_NODELAY on: each message is sent at once", report["endpoint"]["notes"])
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], report["publisher"]["messages_sent"])
        # Each message carries netprof's header and 8 bytes of framing beside its payload.
        self.assertEqual(subscriber["wire_bytes"] - subscriber["payload_bytes"],
                         subscriber["received"] * (wire_header_bytes(NETPROF) + 8))

    def test_two_subscribers_each_get_every_message_and_a_latency_of_their_own(self):
        address = self.address()
        pub, subs = self.run_fan_out(["--tcp", address], ["--tcp", address])
        self.assert_each_subscriber_got_everything_with_its_own_latency(pub, subs)
        self.assertEqual(len(pub.json["endpoint"]["peer_addresses"]), 2)

    def test_ping_pong_with_nagle_on(self):
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "--count", "300",
                                  "--warmup-count", "30", "--tcp-nodelay", "off",
                                  json_name="pingpong", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.json["publisher"]["echoes_received"], 300)
        self.assertTrue(any(note.startswith("TCP_NODELAY off")
                            for note in result.json["endpoint"]["notes"]))

    def test_strangers_that_break_the_framing_are_closed_and_the_run_passes(self):
        address = self.address()
        host, port = address.split(":")
        publisher, pub_json = self.start("-i", "0", "--tcp", address, "--wait", "10", *MODEST,
                                         json_name="pub")
        self.strangers(socket.AF_INET, (host, int(port)))
        subscriber, sub_json = self.start("-i", "1", "--tcp", address, json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        notes = " ".join(pub.json["endpoint"]["notes"])
        self.assertIn("closed 3 connections that sent what netprof does not read (1 ended "
                      "mid-message, 1 not framed, 1 too large)", notes)
        self.assertEqual(pub.json["subscribers"][0]["lost"], 0)

    # Under ASan it failed once in CI (the subscriber exited 3, its output not kept) and passed
    # in ten runs by hand, alone and four at a time: left to the Release stage until understood.
    @unittest.skipIf(sanitized(), "flaked once under ASan with ulimit -n 6; see the comment")
    def test_strangers_holding_every_descriptor_make_room_for_the_subscriber(self):
        # ulimit -n 7: stdin, stdout, stderr, the listener, the timerfd that ends its waits and
        # two connections. Four strangers connect first; each accept that finds no descriptor
        # closes the oldest stranger.
        address = self.address()
        host, port = address.split(":")
        publisher, _ = self.start("-i", "0", "--tcp", address, "--wait", "10", *MODEST,
                                  prefix=("sh", "-c", 'ulimit -n 7; exec "$0" "$@"'))
        strangers = [self.connect_once_listening(socket.AF_INET, (host, int(port)))
                     for _ in range(4)]
        for stranger in strangers:
            self.addCleanup(stranger.close)
        subscriber, _ = self.start("-i", "1", "--tcp", address, "--quiet")
        pub = self.finish(publisher, None, DEADLINE_S)
        sub = self.finish(subscriber, None, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertIn("could not accept connections", pub.stdout)
        self.assertIn("Too many open files (raise ulimit -n)", pub.stdout)
        self.assertIn("strangers (connections never adopted) closed to make room", pub.stdout)

    def test_a_stranger_that_takes_the_only_seat_first_never_fails_the_run(self):
        # Issue 30, item 4: without --key-file, whoever connects and answers the challenge over
        # its own connection takes part; here a netprof subscriber of another id, killed once
        # the measured phase has begun. The real subscriber joins late; the run passes and
        # names the stranger.
        address = self.address()
        publisher, pub_json = self.start("-i", "0", "--tcp", address, "--wait", "10",
                                         "--send-hz", "2000", "-t", "2", "--warmup-time", "0.2",
                                         json_name="pub")
        stranger = self.start_watched("-i", "7", "--tcp", address, "--wait", "10")
        # Killed once it measures: killed in its handshake (a slow start under ASan), it never
        # took the seat, and the run has nothing to name.
        self.wait_for_measured_data(stranger, publisher=publisher)
        stranger.process.kill()
        subscriber, sub_json = self.start("-i", "1", "--tcp", address, "--wait", "10",
                                          json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertIn("2 took part where --subscribers 1 expected: subscriber 7 did not finish "
                      "cleanly, which does not fail the run", pub.stdout)
        [real] = [s for s in pub.json["subscribers"] if s["id"] == 1]
        self.assertTrue(real["joined_late"])
        self.assertGreater(real["received"], 0)

    def test_a_publisher_that_dies_mid_message_fails_its_subscriber_with_exit_3(self):
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen()
            self.fake_publisher_cutting_a_message(listener)
            result = self.run_netprof("-i", "1", "--tcp",
                                      f"127.0.0.1:{listener.getsockname()[1]}", "--wait", "5",
                                      deadline_s=DEADLINE_S)
        self.assert_cut_message_fails_the_subscriber(result)
        self.assertIn("tcp: the publisher's connection (127.0.0.1:", result.stdout)

    def test_bad_command_lines_are_refused_in_one_line(self):
        self.assert_usage_error("-i", "0", "--tcp", "127.0.0.1:0",
                                mentions="bad --tcp value '127.0.0.1:0': a publisher needs a port "
                                         "other than 0")
        self.assert_usage_error("-i", "1", "--tcp", "127.0.0.1",
                                mentions="bad --tcp value '127.0.0.1': expected host:port")
        self.assert_usage_error("--local-pair", "--tcp-nodelay", "maybe",
                                mentions="invalid value 'maybe' for --tcp-nodelay: expected on or "
                                         "off")
        self.assert_usage_error("-i", "0", "--tcp", "127.0.0.1:5555", "--tcp", "127.0.0.1:5556",
                                mentions="a TCP publisher takes one --tcp")


if __name__ == "__main__":
    unittest.main()
