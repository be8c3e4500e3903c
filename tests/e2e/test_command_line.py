"""End-to-end: bad input gets one clear line and its documented exit status."""

import json
import os
import signal
import socket
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port
import netprof_services as services  # scripts/lib, on the path netprof_test_case sets


class BadInputTest(NetprofTestCase):
    def assert_usage_error(self, *args, mentions):
        result = self.run_netprof(*args, deadline_s=20)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn(mentions, result.stderr)
        self.assertEqual(result.stdout, "")

    def test_unknown_flag(self):
        self.assert_usage_error("--sise", "10", mentions="--sise")

    def test_non_numeric_size(self):
        self.assert_usage_error("--local-pair", "-s", "abc", mentions="abc")

    def test_negative_size(self):
        self.assert_usage_error("--local-pair", "-s", "-5", mentions="-5")

    def test_size_beyond_what_udp_carries(self):
        # UDP splits large messages into datagrams, up to its maximum message size.
        self.assert_usage_error("-i", "0", "-u", f"127.0.0.1:{free_udp_port()}",
                                "-s", "100000000", mentions="too large")

    def test_interval_zero(self):
        self.assert_usage_error("--local-pair", "--interval", "0", mentions="--interval")

    def test_negative_interval(self):
        self.assert_usage_error("--local-pair", "--interval", "-1", mentions="-1")

    def test_interval_nan(self):
        self.assert_usage_error("--local-pair", "--interval", "nan", mentions="nan")

    def test_interval_text(self):
        self.assert_usage_error("--local-pair", "--interval", "often", mentions="often")

    def test_interval_longer_than_the_run(self):
        self.assert_usage_error("--local-pair", "-t", "1", "--interval", "2",
                                mentions="longer than the measured phase")

    def test_interval_longer_than_the_default_run(self):
        self.assert_usage_error("-i", "0", "-u", f"127.0.0.1:{free_udp_port()}",
                                "--interval", "11", mentions="longer than the measured phase")

    def test_a_refused_run_leaves_no_empty_json_file(self):
        path = self.json_path("refused")
        self.assert_usage_error("-i", "0", "-u", f"127.0.0.1:{free_udp_port()}",
                                "-s", "100000000", "--json", path, mentions="too large")
        self.assertFalse(os.path.exists(path))

    def test_bad_address(self):
        self.assert_usage_error("-i", "0", "-u", "127.0.0.1", mentions="127.0.0.1")

    def test_list_transports_names_every_transport_once(self):
        # (With no transport option netprof uses multicast, MADARA's default; a test must not
        # send multicast outside a namespace, so that default is covered by unit tests.)
        result = self.run_netprof("--list-transports", deadline_s=20)
        self.assertEqual(result.returncode, 0)
        names = [line.split("\t")[0] for line in result.stdout.splitlines()]
        self.assertIn("udp", names)
        self.assertEqual(len(names), len(set(names)))

    def test_unwritable_json_path(self):
        self.assert_usage_error("--local-pair", "--json", "/nonexistent-dir/x.json",
                                mentions="/nonexistent-dir")

    def test_port_in_use_is_a_runtime_error(self):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
            holder.bind(("127.0.0.1", 0))
            port = holder.getsockname()[1]
            result = self.run_netprof("-i", "0", "-u", f"127.0.0.1:{port}", deadline_s=20)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("in use", result.stderr)

    def test_help_lists_exit_statuses(self):
        result = self.run_netprof("--help", deadline_s=20)
        self.assertEqual(result.returncode, 0)
        for status in ("0", "1", "2", "3", "130"):
            self.assertIn(status, result.stdout)
        self.assertIn("netprof --help TRANSPORT", result.stdout)
        self.assertIn("--udp", self.run_netprof("--help", "udp", deadline_s=20).stdout)

    def test_version(self):
        result = self.run_netprof("--version", deadline_s=20)
        self.assertEqual(result.returncode, 0)
        self.assertIn("netprof", result.stdout)


class TransportListJsonTest(NetprofTestCase):
    """--list-transports --json: what scripts read instead of restating each transport."""

    def listing(self, *options):
        result = self.run_netprof("--list-transports", "--json", *options, deadline_s=20)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def test_describes_every_listed_transport(self):
        listing = self.listing()
        self.assertEqual(listing["schema_version"], 1)
        version = self.run_netprof("--version", deadline_s=20).stdout.split()[1]
        self.assertEqual(listing["version"], version)
        self.assertIsInstance(listing["wire_header_bytes"], int)
        self.assertGreater(listing["wire_header_bytes"], 0)
        plain = self.run_netprof("--list-transports", deadline_s=20).stdout.splitlines()
        self.assertEqual([t["name"] for t in listing["transports"]],
                         [line.split("\t")[0] for line in plain])
        help_text = self.run_netprof("--help", "all", deadline_s=20).stdout
        for transport in listing["transports"]:
            with self.subTest(transport=transport["name"]):
                self.assertEqual(set(transport), {"name", "summary", "named_by", "options",
                                                  "local_pair",
                                                  "loopback", "needs_private_netns",
                                                  "allows_threads", "flags", "remote_launch"})
                self.assertIsInstance(transport["allows_threads"], bool)
                self.assertEqual(set(transport["flags"]),
                                 {"threads", "private_netns", "pair_service", "host_local",
                                  "typed_payloads", "sends_to_one", "deals_in_turn"})
                # Only a transport that serializes samples takes --payload-type struct|nested.
                self.assertEqual(transport["flags"]["typed_payloads"],
                                 transport["name"] == "dds")
                # --fanout round-robin: those whose publisher addresses one subscriber alone.
                self.assertEqual(transport["flags"]["sends_to_one"],
                                 transport["name"] in {"udp", "tcp", "uds", "mq"})
                # ... or whose medium deals each message to one (nng's push0, ZeroMQ's PUSH).
                self.assertEqual(transport["flags"]["deals_in_turn"],
                                 transport["name"] in {"nng", "zmq"})
                self.assertEqual(transport["flags"]["threads"], transport["allows_threads"])
                launch = transport["remote_launch"]
                if launch is not None:
                    self.assertEqual(set(launch), {"publisher", "subscriber"})
                    # A subscriber finds the publisher, or both go through one broker, or
                    # every role meets on a shared medium, on the interface facing the others.
                    reached = {"mqtt": "{broker}", "redis": "{broker}", "multicast": "{address}",
                               "broadcast": "{address}", "dds": "{address}",
                               "fastdds": "{address}"}.get(transport["name"], "{publisher}")
                    self.assertIn(reached, " ".join(launch["subscriber"]))
                self.assertEqual(launch is None, transport["name"] not in
                                 ("udp", "multicast", "broadcast", "tcp", "zmq", "dds", "fastdds",
                                  "mqtt", "redis"))
                self.assertTrue(transport["summary"])
                self.assertEqual(transport["named_by"]["option"].lstrip("-"),
                                 transport["options"][0])
                self.assertIsInstance(transport["named_by"]["value_optional"], bool)
                for option in transport["options"]:
                    self.assertIn("--" + option, help_text)
                pair = transport["local_pair"]
                self.assertTrue(pair["publisher"] and pair["subscriber"])
                self.assertEqual(transport["needs_private_netns"],
                                 transport["name"] in ("multicast", "broadcast"))
        udp = next(t for t in listing["transports"] if t["name"] == "udp")
        self.assertIn("udp-batch", udp["options"])

    def test_loopback_arguments_for_several_subscribers(self):
        result = self.run_netprof("--list-transports", "--json", "--subscribers", "3",
                                  deadline_s=20)
        self.assertEqual(result.returncode, 0, result.stderr)
        for transport in json.loads(result.stdout)["transports"]:
            with self.subTest(transport=transport["name"]):
                loopback = transport["loopback"]
                self.assertTrue(loopback["publisher"])
                self.assertEqual(len(loopback["subscribers"]), 3)
                self.assertIsInstance(loopback["files"], list)

    def test_each_call_gives_fresh_ports(self):
        first, second = (next(t for t in self.listing()["transports"] if t["name"] == "udp")
                         for _ in range(2))
        self.assertNotEqual(first["local_pair"], second["local_pair"])

    def test_the_listed_pair_arguments_run_a_pair_on_this_host(self):
        # What a script does with the listing; multicast and broadcast need a namespace.
        for transport in self.listing()["transports"]:
            if transport["needs_private_netns"]:
                continue
            with self.subTest(transport=transport["name"]):
                # Role processes never start RouDi, an MQTT broker or a Redis server: the scripts do
                # (services.roudi_for), and list the pair beside the broker they started.
                roudi, reason = services.roudi_for_transports([transport["name"]])
                self.assertIsNone(reason)
                try:
                    options = services.service_options(transport["name"])
                    pair = transport["local_pair"]
                    if options:
                        pair = next(t for t in self.listing(*options)["transports"]
                                    if t["name"] == transport["name"])["local_pair"]
                    self.run_listed_pair(pair)
                finally:
                    if roudi:
                        roudi.stop()

    def run_listed_pair(self, pair):
        # Paced: what is checked is that the arguments make a working pair. Unpaced, a loaded CI
        # machine once let a DDS publisher's 229,340 messages in 0.3 s reach its subscriber as
        # none at all (keep-last 16), a fact about flooding DDS, not about the listing.
        subscriber, _ = self.start("-i", "1", "--wait", "10", *pair["subscriber"])
        publisher, _ = self.start("-i", "0", "-t", "0.3", "--warmup-time", "0.1", "--wait", "10",
                                  "--send-hz", "2000", *pair["publisher"])
        result = self.finish(publisher, deadline_s=30)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(result.stdout.startswith("Test: SUCCESS"), result.stdout)
        self.assertEqual(self.finish(subscriber, deadline_s=30).returncode, 0)


class InterruptTest(NetprofTestCase):
    def test_sigint_prints_a_partial_report_and_exits_130(self):
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        sub_addr = f"127.0.0.1:{free_udp_port()}"
        subscriber = self.start_watched("-i", "1", "-u", sub_addr, "-u", pub_addr,
                                        json_name="int-sub")
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "-t", "60", "--send-hz", "1000",
                                         "--warmup-time", "0.2", json_name="int-pub")
        self.wait_for_measured_data(subscriber, publisher=publisher)
        publisher.send_signal(signal.SIGINT)
        result = self.finish(publisher, pub_json, deadline_s=20)
        self.assertEqual(result.returncode, 130, result.stderr)
        self.assertTrue(result.stdout.startswith("Test: INTERRUPTED"), result.stdout)
        self.assertTrue(result.json["result"]["interrupted"])
        self.assertGreater(result.json["publisher"]["messages_sent"], 0)
        # The publisher still ended the test, so the subscriber finishes cleanly too.
        sub = self.finish_watched(subscriber, deadline_s=20)
        self.assertTrue(sub.json["subscriber"]["end_received"])


if __name__ == "__main__":
    unittest.main()
