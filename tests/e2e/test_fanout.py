"""End-to-end: --fanout round-robin (issue 33, item 2): each data message goes to one subscriber
in turn, and the publisher charges each with what it dealt to it. Real processes over TCP on
127.0.0.1, Unix sockets in a temporary folder and POSIX message queues."""

import os
import socket
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port
from test_mq import MqTestCase

DEADLINE_S = 60


def free_tcp_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RoundRobinCase(NetprofTestCase):
    def deal(self, transport_args, subscribers, *publisher_args, subscriber_args=None):
        """A publisher dealing round-robin to `subscribers` subscribers (each started with
        `subscriber_args(id)`, or the publisher's transport arguments); returns (publisher,
        [subscribers]) finished, each with exit status and JSON."""
        own = subscriber_args or (lambda i: transport_args)
        started = [self.start("-i", str(i), *own(i), json_name=f"sub{i}")
                   for i in range(1, subscribers + 1)]
        publisher, pub_json = self.start("-i", "0", *transport_args, "--subscribers",
                                         str(subscribers), "--fanout", "round-robin",
                                         *publisher_args, json_name="pub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in started]
        return pub, subs

    def assert_dealt_evenly(self, pub, subs, sent):
        said = pub.stdout + pub.stderr + "".join(s.stdout + s.stderr for s in subs)
        self.assertEqual(pub.returncode, 0, said)
        self.assertEqual(pub.json["publisher"]["messages_sent"], sent)
        self.assertEqual(pub.json["settings"]["fanout"], "round-robin")
        shares = [s["messages_owed"] for s in pub.json["subscribers"]]
        self.assertEqual(len(shares), len(subs))
        self.assertEqual(sum(shares), sent)
        self.assertLessEqual(max(shares) - min(shares), 1, shares)
        received = 0
        for summary in pub.json["subscribers"]:
            self.assertEqual(summary["unique"], summary["messages_owed"], summary)
            self.assertEqual(summary["lost"], 0, summary)
            self.assertEqual(summary["gaps"], 0, summary)
            received += summary["unique"]
        self.assertEqual(received, sent, "every message reached exactly one subscriber")
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
            self.assertEqual(sub.json["settings"]["fanout"], "round-robin")
            # Its gaps are the others' messages: neither gaps nor loss in its own report.
            self.assertEqual(sub.json["subscriber"]["gaps"], 0)
            self.assertEqual(sub.json["subscriber"]["lost"], 0)
            self.assertIn("Lost: counted by the publisher", sub.stdout)


class TcpRoundRobinTest(RoundRobinCase):
    def test_five_subscribers_get_a_fifth_each_of_100000_messages(self):
        """The RMR experiment: one sender, round-robin to 5 receivers."""
        tcp = ["--tcp", f"127.0.0.1:{free_tcp_port()}"]
        pub, subs = self.deal(tcp, 5, "--count", "100000", "--wait", "20")
        self.assert_dealt_evenly(pub, subs, 100000)
        self.assertEqual(sorted(s["messages_owed"] for s in pub.json["subscribers"]),
                         [20000] * 5)
        self.assertIn("Dealt to it: 20,000 of 100,000 sent (20.0%, round-robin)", pub.stdout)
        self.assertIn("Fan-out: round-robin", pub.stdout)

    def test_one_command_runs_the_whole_group(self):
        """--local-pair --subscribers 5: the publisher and its five subscribers in one command."""
        result = self.run_netprof("--local-pair", "--tcp", "--subscribers", "5", "--fanout",
                                  "round-robin", "--count", "100000", json_name="group",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        subscribers = result.json["subscribers"]
        self.assertEqual(sorted(s["id"] for s in subscribers), [1, 2, 3, 4, 5])
        for summary in subscribers:
            self.assertEqual(summary["messages_owed"], 20000, summary)
            self.assertEqual(summary["unique"], 20000, summary)
        self.assertIn("Local pair: a publisher and 5 subscriber processes", result.stdout)

    def test_a_subscriber_killed_mid_run_is_charged_with_its_share(self):
        port = free_tcp_port()
        tcp = ["--tcp", f"127.0.0.1:{port}"]
        doomed = self.start_watched("-i", "2", *tcp)
        survivor, survivor_json = self.start("-i", "1", *tcp, json_name="sub1")
        publisher, pub_json = self.start("-i", "0", *tcp, "--subscribers", "2", "--fanout",
                                         "round-robin", "-t", "3", "--send-hz", "2000",
                                         "--warmup-time", "0.2", json_name="pub")
        self.wait_for_measured_data(doomed, publisher=publisher)
        doomed.process.kill()
        doomed.process.wait(timeout=10)
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        self.finish(survivor, survivor_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 1, pub.stdout)
        by_id = {s["id"]: s for s in pub.json["subscribers"]}
        self.assertEqual(by_id[2]["outcome"], "vanished", by_id[2])
        # The survivor kept its turn: half of what was sent, all of it received.
        sent = pub.json["publisher"]["messages_sent"]
        self.assertLessEqual(abs(2 * by_id[1]["messages_owed"] - sent), 1)
        self.assertEqual(by_id[1]["unique"], by_id[1]["messages_owed"])
        self.assertEqual(by_id[1]["lost"], 0)


class UdpRoundRobinTest(RoundRobinCase):
    def udp_group(self, subscribers):
        publisher = f"127.0.0.1:{free_udp_port()}"
        own = {i: f"127.0.0.1:{free_udp_port()}" for i in range(1, subscribers + 1)}
        return ["-u", publisher], lambda i: ["-u", own[i], "-u", publisher]

    def test_three_subscribers_get_a_third_each(self):
        publisher, subscriber = self.udp_group(3)
        pub, subs = self.deal(publisher, 3, "--count", "3000", "--send-hz", "2000",
                              subscriber_args=subscriber)
        self.assert_dealt_evenly(pub, subs, 3000)

    def test_fragmented_messages_reach_only_their_subscriber_whole(self):
        publisher, subscriber = self.udp_group(2)
        pub, subs = self.deal(publisher, 2, "--count", "200", "--send-hz", "200", "-s",
                              "100000", subscriber_args=subscriber)
        self.assert_dealt_evenly(pub, subs, 200)
        for summary in pub.json["subscribers"]:
            self.assertGreater(summary["datagrams"], summary["received"], "not fragmented")


class UdsRoundRobinTest(RoundRobinCase):
    def test_both_socket_types_deal_evenly(self):
        for socket_type in ("stream", "seqpacket"):
            with self.subTest(socket_type=socket_type):
                path = os.path.join(self._tmp.name, f"rr-{socket_type}.sock")
                uds = ["--uds", path, "--uds-type", socket_type]
                pub, subs = self.deal(uds, 3, "--count", "30000")
                self.assert_dealt_evenly(pub, subs, 30000)


class MqRoundRobinTest(RoundRobinCase, MqTestCase):
    def test_ping_pong_waits_for_the_one_echo_each_probe_is_owed(self):
        name = self.run_name(subscribers=3)
        pub, subs = self.deal(["--mq", name], 3, "--mode", "ping-pong", "--count", "3000")
        self.assert_dealt_evenly(pub, subs, 3000)
        for summary in pub.json["subscribers"]:
            self.assertEqual(summary["probes_sent"], 1000, summary)
            self.assertEqual(summary["echoes"], 1000, summary)


class RefusedFanoutTest(NetprofTestCase):
    def test_a_transport_that_sends_to_everyone_is_refused_naming_those_that_can(self):
        self.assert_refused_in_one_line(
            ["--local-pair", "--shm", "--fanout", "round-robin"], 2,
            "--fanout round-robin: the shm transport cannot send a message to one subscriber "
            "alone (udp, zmq, tcp, uds, mq and nng can)")

    def test_an_unknown_fanout_is_refused(self):
        self.assert_refused_in_one_line(["--local-pair", "--fanout", "some"], 2,
                                        "invalid value 'some' for --fanout: expected all or "
                                        "round-robin")


if __name__ == "__main__":
    unittest.main()
