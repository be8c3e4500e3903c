"""End-to-end, cross-vendor: a Cyclone DDS process (the dds transport, --dds) and an eProsima
Fast DDS process (the fastdds transport, --fastdds) of one run, over RTPS on loopback: the same
domain, the same topics (NAME_data, NAME_echo) and the same type (netprof_dds::Message, plain
CDR). Each process chooses its transport alone, so the publisher may run one vendor and its
subscribers the other. Both directions pass a reliable ping-pong in which every probe is echoed
across vendors, and a best-effort stream; a reliability mismatch across vendors is named on both
sides before --wait.

Both sides keep to loopback: --dds-loopback (Cyclone on lo, no multicast, peers 127.0.0.1) and
--fastdds-loopback (UDPv4 on 127.0.0.1, no shared memory, no multicast, peers 127.0.0.1), each
reaching the discovery ports of the first 50 participants of the domain on this host.
"""

import unittest

from dds_family_case import DEADLINE_S, MODEST, PING_PONG, DdsFamilyTestCase, unique_topic

VENDORS = {"dds": ["--dds-loopback"], "fastdds": ["--fastdds-loopback"]}


class InteropTest(DdsFamilyTestCase):
    def vendor(self, name, topic, *extra):
        return [f"--{name}", topic, *VENDORS[name], *extra]

    def run_across(self, publisher_vendor, subscriber_vendor, publisher_extra, name, qos=()):
        """`qos` goes to both processes (the generic --reliability and --history, which each
        vendor maps the same way); `publisher_extra` to the publisher only."""
        topic = unique_topic()
        publisher, pub_json = self.start("-i", "0", *self.vendor(publisher_vendor, topic),
                                         "--wait", "20", *qos, *publisher_extra,
                                         json_name=f"{name}_pub")
        subscriber, sub_json = self.start("-i", "1", *self.vendor(subscriber_vendor, topic),
                                          "--wait", "20", *qos, json_name=f"{name}_sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        return pub, sub

    def assert_ping_pong_across(self, publisher_vendor, subscriber_vendor):
        pub, sub = self.run_across(publisher_vendor, subscriber_vendor, PING_PONG,
                                   f"{publisher_vendor}_to_{subscriber_vendor}")
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(pub.json["endpoint"]["transport"], publisher_vendor)
        self.assertEqual(sub.json["endpoint"]["transport"], subscriber_vendor)
        publisher = pub.json["publisher"]
        self.assertEqual(publisher["echoes_received"], 300)
        [summary] = pub.json["subscribers"]
        self.assertEqual(summary["received"], publisher["messages_sent"])
        self.assertEqual(summary["lost"], 0)
        self.assertIn("discovery_seconds", pub.json["endpoint"])
        self.assertIn("discovery_seconds", sub.json["endpoint"])

    def test_cyclone_publisher_fast_dds_subscriber_ping_pong(self):
        self.assert_ping_pong_across("dds", "fastdds")

    def test_fast_dds_publisher_cyclone_subscriber_ping_pong(self):
        self.assert_ping_pong_across("fastdds", "dds")

    def test_best_effort_stream_both_ways(self):
        for publisher_vendor, subscriber_vendor in (("dds", "fastdds"), ("fastdds", "dds")):
            with self.subTest(publisher=publisher_vendor):
                pub, sub = self.run_across(
                    publisher_vendor, subscriber_vendor, MODEST, f"stream_{publisher_vendor}",
                    qos=["--reliability", "best-effort", "--history", "keep-last:8"])
                self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
                self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
                [summary] = pub.json["subscribers"]
                self.assertGreater(summary["received"], 0)
                self.assertIn("QoS best-effort, keep-last:8",
                              " ".join(sub.json["endpoint"]["notes"]))

    def test_mismatched_reliability_across_vendors_is_named_before_wait(self):
        topic = unique_topic()
        self.assert_mismatch_named_before_wait(
            self.vendor("dds", topic, "--dds-reliability", "best-effort"),
            self.vendor("fastdds", topic))


if __name__ == "__main__":
    unittest.main()
