"""End-to-end: real publisher and subscriber processes over eProsima Fast DDS, kept on loopback
by --fastdds-loopback (UDPv4 on 127.0.0.1 only, no shared memory, no multicast, unicast
discovery to 127.0.0.1): a reliable ping-pong local pair with each --fastdds-notify, a
best-effort stream, two subscribers in separate processes, a publisher and a subscriber whose
reliability DDS will not match (both refused by name, well before --wait), a stranger writing
garbage samples to the run's topics, and the refusals (a domain id out of range, -s over the
limit, a bad --fastdds-history), each with one line and its documented exit status.

Every run has topics of its own (a unique --fastdds NAME), so concurrent runs never hear each
other. Cyclone and Fast DDS together: test_fastdds_interop.py.
"""

import os
import re
import time
import unittest
import uuid

from netprof_test_case import NETPROF, NetprofTestCase

DEADLINE_S = 30
# A generous probe timeout, so that an echo only late on a loaded machine (or under ASan) is not
# counted as lost: what these tests check is that Fast DDS carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]
SHORT = ["--mode", "ping-pong", "--count", "200", "--warmup-count", "20", "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
# The largest payload netprof's DDS samples carry (FastDdsEndpoint::max_payload_size).
MAX_PAYLOAD = 1024 * 1024


def unique_topic():
    return "netprof_e2e_" + uuid.uuid4().hex


class FastDdsTestCase(NetprofTestCase):
    def two_terminal(self, *extra):
        """The options of a two-terminal run on loopback with topics of its own."""
        return ["--fastdds", unique_topic(), "--fastdds-loopback", *extra]


class LocalPairTest(FastDdsTestCase):
    def test_two_publishers_each_on_topics_of_their_own(self):
        self.assert_two_publishers_lose_nothing("--fastdds", "--fastdds-history", "keep-all",
                                                *MODEST, deadline_s=DEADLINE_S)

    def test_reliable_ping_pong_echoes_every_probe_and_times_discovery(self):
        result = self.run_netprof("--local-pair", "--fastdds", *PING_PONG, json_name="pingpong",
                                  deadline_s=DEADLINE_S)
        endpoint = self.assert_ping_pong_passed(result, "fastdds", 300)["endpoint"]
        self.assertGreater(endpoint["discovery_seconds"], 0)
        self.assertLess(endpoint["discovery_seconds"], DEADLINE_S)
        notes = " ".join(endpoint["notes"])
        self.assertIn("eProsima Fast DDS 2.", notes)
        self.assertIn("QoS reliable, keep-all", notes)  # fastdds's default history
        self.assertIn("--fastdds-loopback", notes)
        self.assertIn("notification: --fastdds-notify waitset", notes)

    def test_listener_ping_pong_answers_on_fast_dds_thread_and_says_so(self):
        result = self.run_netprof("--local-pair", "--fastdds", "--fastdds-notify", "listener",
                                  *PING_PONG, json_name="listener", deadline_s=DEADLINE_S)
        endpoint = self.assert_ping_pong_passed(result, "fastdds", 300)["endpoint"]
        notes = " ".join(endpoint["notes"])
        self.assertIn("notification: --fastdds-notify listener", notes)
        handed = re.search(r"(\d+) of (\d+) samples handed over on Fast DDS's receive thread",
                           notes)
        self.assertIsNotNone(handed, notes)
        self.assertGreater(int(handed.group(1)), 0, notes)

    def test_poll_ping_pong_passes(self):
        result = self.run_netprof("--local-pair", "--fastdds", "--fastdds-notify", "poll", *SHORT,
                                  json_name="poll", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "fastdds", 200)

    def test_best_effort_stream_names_its_qos(self):
        result = self.run_netprof("--local-pair", "--fastdds", "--reliability", "best-effort",
                                  "--history", "keep-last:8", *MODEST, json_name="stream",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        notes = " ".join(result.json["endpoint"]["notes"])
        self.assertIn("QoS best-effort, keep-last:8", notes)
        [subscriber] = result.json["subscribers"]
        self.assertGreater(subscriber["received"], 0)

    def test_large_samples_are_fragmented_and_arrive(self):
        # 256 KiB: several UDP datagrams per sample, which Fast DDS fragments and reassembles.
        result = self.run_netprof("--local-pair", "--fastdds", "-s", "262144", *SHORT,
                                  json_name="large", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "fastdds", 200)


class TwoProcessTest(FastDdsTestCase):
    def test_two_subscribers_each_get_everything(self):
        options = self.two_terminal("--fastdds-domain", "7", "--fastdds-history", "keep-all")
        publisher, pub_json = self.start("-i", "0", *options, "--subscribers", "2",
                                         "--wait", "20", *MODEST, json_name="pub")
        subscribers = [self.start("-i", i, *options, "--wait", "20", json_name=f"sub{i}")
                       for i in ("1", "2")]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, path, DEADLINE_S) for process, path in subscribers]
        self.assert_each_subscriber_got_everything(pub, subs)
        self.assertIn("domain 7", " ".join(pub.json["endpoint"]["notes"]))

    def test_mismatched_reliability_is_named_on_both_sides_before_wait(self):
        topic = unique_topic()
        start = time.monotonic()
        publisher, pub_json = self.start("-i", "0", "--fastdds", topic, "--fastdds-loopback",
                                         "--fastdds-reliability", "best-effort", "--wait", "25",
                                         *MODEST, json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "--fastdds", topic, "--fastdds-loopback",
                                          "--wait", "25", json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertLess(time.monotonic() - start, 15, "waited for --wait instead")
        self.assertEqual(pub.returncode, 3, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 3, sub.stdout + sub.stderr)
        self.assertIn("a subscriber is reliable and this publisher best-effort", pub.stdout)
        self.assertIn("the publisher is best-effort and this subscriber reliable", sub.stdout)
        self.assertIn("--fastdds-reliability", sub.stdout)


# A Cyclone DDS stranger (transports/dds/tests/dds_stranger.cpp) writing random samples of the
# run's type to both topics, with the QoS netprof uses by default: it reaches a Fast DDS run
# over RTPS, as any DDS vendor's writer would.
STRANGER = os.path.join(os.path.dirname(os.path.abspath(NETPROF)), "tests", "contract", "dds",
                        "dds_stranger")


class StrangerTest(FastDdsTestCase):
    @unittest.skipUnless(os.access(STRANGER, os.X_OK), "dds_stranger is not built")
    def test_garbage_samples_on_both_topics_are_rejected_and_the_run_passes(self):
        topic = unique_topic()
        self._processes.start([STRANGER, topic, "60"])  # killed in cleanup
        # keep-all: under keep-last:16 the stranger's 1,000 samples/s may push a genuine echo
        # out of the publisher's reader history before it is taken (as in test_dds.py).
        # --send-hz 100: three seconds, since a Cyclone participant started before the run may
        # take a second or so to match it (its discovery of a Fast DDS participant is not
        # immediate), and a run over before then never meets the stranger.
        options = ["--fastdds", topic, "--fastdds-loopback", "--fastdds-history", "keep-all",
                   "--wait", "20", *PING_PONG, "--send-hz", "100"]
        publisher, pub_json = self.start("-i", "0", *options, json_name="pub")
        subscriber, sub_json = self.start("-i", "1", *options, json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(pub.json["publisher"]["echoes_received"], 300)
        [summary] = pub.json["subscribers"]
        self.assertEqual(summary["lost"], 0)
        self.assertGreater(pub.json["rejected"], 0, "the stranger's echo samples went unseen")
        self.assertGreater(sub.json["rejected"], 0, "the stranger's data samples went unseen")


class RefusalTest(FastDdsTestCase):
    def test_domain_out_of_range(self):
        self.assert_refused_in_one_line(["-i", "0", "--fastdds", "--fastdds-domain", "233"], 2,
                            "--fastdds-domain", "233")

    def test_payload_over_the_limit(self):
        self.assert_refused_in_one_line(["--local-pair", "--fastdds", "-s", str(MAX_PAYLOAD + 1), "-t", "1"],
                            2, f"at most {MAX_PAYLOAD} B", "fastdds")

    def test_bad_history(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "--fastdds-history", "keep-last:0"], 2,
                            "--fastdds-history", "keep-last:N")

    def test_bad_topic_name(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "no spaces"], 2, "--fastdds")

    def test_unknown_notify(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "--fastdds-notify", "callback"], 2,
                            "--fastdds-notify", "callback")

    def test_generic_qos_contradicting_its_own(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "--fastdds-reliability", "reliable",
                             "--reliability", "best-effort"], 2,
                            "contradicts --fastdds-reliability reliable")


if __name__ == "__main__":
    unittest.main()
