"""End-to-end: --payload-type and --dds-keys over Cyclone DDS, as real processes on loopback
(--dds-loopback). A nested and a flat struct ping-pong local pair lose nothing and the report
names the type; samples spread over 8 instances of a keyed type (bytes and nested) all arrive;
a subscriber of another type never matches and the run fails naming the options to check; and
the refusals off DDS, each one line with exit 2.

Every run has topics of its own (a unique --dds NAME), so concurrent runs never hear each other.
"""

import unittest

from test_dds import DEADLINE_S, DdsTestCase

PING_PONG = ["--mode", "ping-pong", "--count", "200", "--warmup-count", "20",
             "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]


class PayloadTypeTest(DdsTestCase):
    def ping_pong(self, payload_type, size, *extra):
        result = self.run_netprof("--local-pair", "--dds", "--payload-type", payload_type,
                                  "-s", str(size), *PING_PONG, *extra,
                                  json_name=payload_type, deadline_s=DEADLINE_S)
        report = self.assert_ping_pong_passed(result, "dds", 200)
        self.assertEqual(report["settings"]["payload_type"], payload_type)
        self.assertIn(f"Payload type: {payload_type}", result.stdout)
        return report

    def test_nested_ping_pong_loses_nothing_and_names_the_type(self):
        # --echo full: the echo is a nested sample as large as the probe, and comes back whole.
        report = self.ping_pong("nested", 1024, "--echo", "full")
        self.assertIn("netprof_dds::Nested", " ".join(report["endpoint"]["notes"]))
        self.assertEqual(report["publisher"]["echo_bytes_per_echo"], 52 + 1024)

    def test_flat_struct_ping_pong_takes_the_smallest_array_that_holds_it(self):
        report = self.ping_pong("struct", 64)
        self.assertIn("netprof_dds::Flat256", " ".join(report["endpoint"]["notes"]))

    def test_a_subscriber_of_another_type_never_matches_and_the_run_says_what_to_check(self):
        options = self.two_terminal("--wait", "2")
        subscriber, _ = self.start("-i", "1", *options, "--payload-type", "bytes")
        publisher = self.run_netprof("-i", "0", *options, "--payload-type", "nested", "-t", "1",
                                     deadline_s=DEADLINE_S)
        self.finish(subscriber, None, DEADLINE_S)
        self.assertEqual(publisher.returncode, 3, publisher.stdout + publisher.stderr)
        self.assertIn("discovery never completed", publisher.stdout)
        self.assertIn("--payload-type", publisher.stdout)


class KeyedInstancesTest(DdsTestCase):
    def assert_every_message_arrives(self, *extra):
        result = self.run_netprof("--local-pair", "--dds", "--dds-keys", "8", *MODEST, *extra,
                                  json_name="keyed", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["received"], result.json["publisher"]["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
        self.assertIn("round-robin over 8 instances", " ".join(result.json["endpoint"]["notes"]))
        return result.json

    def test_bytes_spread_over_eight_instances_all_arrive(self):
        report = self.assert_every_message_arrives()
        self.assertIn("netprof_dds::KeyedMessage", " ".join(report["endpoint"]["notes"]))

    def test_nested_samples_with_records_spread_over_eight_instances_all_arrive(self):
        report = self.assert_every_message_arrives("--payload-type", "nested", "--num-vars", "4")
        self.assertEqual(report["settings"]["payload_type"], "nested")


class RefusalTest(DdsTestCase):
    def test_nested_on_udp(self):
        self.assert_refused_in_one_line(["--local-pair", "--payload-type", "nested", "-t", "1"], 2,
                            "--payload-type nested", "udp", "opaque bytes")

    def test_struct_on_fastdds(self):
        self.assert_refused_in_one_line(["--local-pair", "--fastdds", "--payload-type", "struct", "-t", "1"],
                            2, "--payload-type struct", "fastdds", "opaque bytes")

    def test_nested_beyond_what_its_sample_may_serialize_to(self):
        self.assert_refused_in_one_line(["--local-pair", "--dds", "--payload-type", "nested", "-s", "1M",
                             "-t", "1"], 2, "-s 1048576", "at most 701600 B", "nested")

    def test_keys_off_dds(self):
        # Alone, --dds-keys selects dds (as --mc-ttl selects multicast); beside another
        # transport it is refused by name.
        self.assert_refused_in_one_line(["--local-pair", "--tcp", "--dds-keys", "8", "-t", "1"], 2,
                            "--dds-keys", "tcp", "dds")


if __name__ == "__main__":
    unittest.main()
