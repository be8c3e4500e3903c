"""End-to-end: real publisher and subscriber processes over Cyclone DDS, kept on loopback by
--dds-loopback (lo only, no multicast, unicast discovery to 127.0.0.1): a reliable ping-pong
local pair, a best-effort stream, two subscribers in separate processes, a publisher and a
subscriber whose reliability DDS will not match (both refused by name, well before --wait), and
the refusals (a domain id out of range, -s over the limit, a bad --dds-history), each with one
line and its documented exit status.

Every run has topics of its own (a unique --dds NAME), so concurrent runs never hear each other.
"""

import os
import time
import unittest
import uuid

from netprof_test_case import NETPROF, NetprofTestCase

DEADLINE_S = 30
# A generous probe timeout, so that an echo only late on a loaded machine (or under ASan) is not
# counted as lost: what these tests check is that DDS carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
# The largest payload netprof's DDS samples carry (DdsEndpoint::max_payload_size).
MAX_PAYLOAD = 1024 * 1024


def unique_topic():
    return "netprof_e2e_" + uuid.uuid4().hex


class DdsTestCase(NetprofTestCase):
    def two_terminal(self, *extra):
        """The options of a two-terminal run on loopback with topics of its own."""
        return ["--dds", unique_topic(), "--dds-loopback", *extra]


class LocalPairTest(DdsTestCase):
    def test_two_publishers_each_on_topics_of_their_own(self):
        # Publisher 1's topics are NAME_1_data and NAME_1_echo. Keep-all, so that six processes
        # on two loaded cores (under ASan) lose nothing to an overwritten history.
        self.assert_two_publishers_lose_nothing("--dds", "--dds-history", "keep-all", *MODEST,
                                                deadline_s=DEADLINE_S)

    def test_reliable_ping_pong_echoes_every_probe_and_times_discovery(self):
        result = self.run_netprof("--local-pair", "--dds", *PING_PONG, json_name="pingpong",
                                  deadline_s=DEADLINE_S)
        endpoint = self.assert_ping_pong_passed(result, "dds", 300)["endpoint"]
        self.assertGreater(endpoint["discovery_seconds"], 0)
        self.assertLess(endpoint["discovery_seconds"], DEADLINE_S)
        notes = " ".join(endpoint["notes"])
        self.assertIn("QoS reliable, keep-last:16", notes)
        self.assertIn("--dds-loopback", notes)
        self.assertIn("Discovery:", result.stdout)

    def test_best_effort_stream_names_its_qos(self):
        result = self.run_netprof("--local-pair", "--dds", "--dds-reliability", "best-effort",
                                  "--dds-history", "keep-last:8", *MODEST, json_name="stream",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        notes = " ".join(result.json["endpoint"]["notes"])
        self.assertIn("QoS best-effort, keep-last:8", notes)
        [subscriber] = result.json["subscribers"]
        self.assertGreater(subscriber["received"], 0)


class TwoProcessTest(DdsTestCase):
    def test_two_subscribers_each_get_everything(self):
        options = self.two_terminal("--dds-domain", "7", "--dds-history", "keep-all")
        publisher, pub_json = self.start("-i", "0", *options, "--subscribers", "2",
                                         "--wait", "20", *MODEST, json_name="pub")
        subscribers = [self.start("-i", i, *options, "--wait", "20", json_name=f"sub{i}")
                       for i in ("1", "2")]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in subscribers]
        self.assert_each_subscriber_got_everything(pub, subs)
        for sub in subs:
            self.assertIn("discovery_seconds", sub.json["endpoint"])
        self.assertIn("domain 7", " ".join(pub.json["endpoint"]["notes"]))

    def test_mismatched_reliability_is_named_on_both_sides_before_wait(self):
        topic = unique_topic()
        start = time.monotonic()
        publisher, pub_json = self.start("-i", "0", "--dds", topic, "--dds-loopback",
                                         "--dds-reliability", "best-effort", "--wait", "25",
                                         *MODEST, json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "--dds", topic, "--dds-loopback",
                                          "--wait", "25", json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertLess(time.monotonic() - start, 15, "waited for --wait instead")
        self.assertEqual(pub.returncode, 3, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 3, sub.stdout + sub.stderr)
        self.assertIn("a subscriber is reliable and this publisher best-effort", pub.stdout)
        self.assertIn("the publisher is best-effort and this subscriber reliable", sub.stdout)
        self.assertIn("--dds-reliability", sub.stdout)


# Built beside netprof (transports/dds/tests/dds_stranger.cpp).
STRANGER = os.path.join(os.path.dirname(os.path.abspath(NETPROF)), "tests", "contract", "dds",
                        "dds_stranger")


class StrangerTest(DdsTestCase):
    @unittest.skipUnless(os.access(STRANGER, os.X_OK), "dds_stranger is not built")
    def test_garbage_samples_on_both_topics_are_rejected_and_the_run_passes(self):
        topic = unique_topic()
        self._processes.start([STRANGER, topic, "60"])  # killed in cleanup
        # keep-all: under keep-last:16 the stranger's 1,000 samples/s may push a genuine echo
        # out of the publisher's reader history before it is taken (the likely cause of the one
        # echo in 300 a CI run under ASan missed): what keep-last means, not a stranger accepted.
        options = ["--dds", topic, "--dds-loopback", "--dds-history", "keep-all", "--wait", "20",
                   *PING_PONG]
        subscriber, sub_json = self.start("-i", "1", *options, json_name="sub")
        # A 300-probe run lasts a fraction of a second: on a loaded machine it could end before
        # the stranger's writer and the subscriber's reader discover each other (a local CI run
        # at load 9 saw none of its data samples). The subscriber waits for the publisher with
        # its reader open, so a head start gives discovery time without lengthening the run.
        time.sleep(1.5)
        publisher, pub_json = self.start("-i", "0", *options, json_name="pub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        publisher_figures = pub.json["publisher"]
        self.assertEqual(publisher_figures["echoes_received"], 300)
        [summary] = pub.json["subscribers"]
        self.assertEqual(summary["received"], publisher_figures["messages_sent"])
        self.assertEqual(summary["lost"], 0)
        self.assertGreater(pub.json["rejected"], 0, "the stranger's echo samples went unseen")
        self.assertGreater(sub.json["rejected"], 0, "the stranger's data samples went unseen")


class RefusalTest(DdsTestCase):
    def test_domain_out_of_range(self):
        self.assert_refused_in_one_line(["-i", "0", "--dds", "--dds-domain", "233"], 2, "--dds-domain",
                            "233")

    def test_payload_over_the_limit(self):
        self.assert_refused_in_one_line(["--local-pair", "--dds", "-s", str(MAX_PAYLOAD + 1), "-t", "1"], 2,
                            f"at most {MAX_PAYLOAD} B", "dds")

    def test_bad_history(self):
        self.assert_refused_in_one_line(["-i", "1", "--dds", "--dds-history", "keep-last:0"], 2,
                            "--dds-history", "keep-last:N")

    def test_bad_topic_name(self):
        self.assert_refused_in_one_line(["-i", "1", "--dds", "no spaces"], 2, "--dds")

    def test_interface_must_be_this_hosts_and_only_across_hosts(self):
        # The options both DDS transports share (transports/common/dds_family_options.cpp):
        # --fastdds-interface is refused by the same code.
        self.assert_refused_in_one_line(["-i", "1", "--dds", "--dds-interface", "10.99.99.99"], 2,
                            "bad --dds-interface value '10.99.99.99': no interface has this "
                            "address or name (these do: 127.0.0.1 (lo)")
        self.assert_refused_in_one_line(["-i", "1", "--dds", "--dds-interface", "lo",
                             "--dds-loopback"], 2,
                            "--dds-interface and --dds-loopback: give one")
        self.assert_refused_in_one_line(["--local-pair", "--dds", "--dds-interface", "lo"], 2,
                            "--dds-interface: the local pair keeps DDS on lo")


if __name__ == "__main__":
    unittest.main()
