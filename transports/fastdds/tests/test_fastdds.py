"""End-to-end: real publisher and subscriber processes over eProsima Fast DDS, kept on loopback
by --fastdds-loopback (UDPv4 on 127.0.0.1 only, no shared memory, no multicast, unicast
discovery to 127.0.0.1): a reliable ping-pong local pair with each --fastdds-notify, a
best-effort stream, two subscribers in separate processes, a publisher and a subscriber whose
reliability DDS will not match (both refused by name, well before --wait), a stranger writing
garbage samples to the run's topics, and the refusals (a domain id out of range, -s over the
limit, a bad --fastdds-history), each with one line and its documented exit status.

Every run has topics of its own (a unique --fastdds NAME), so concurrent runs never hear each
other. Cyclone and Fast DDS together: test_fastdds_interop.py. What the dds transport's tests
check alike is in tests/e2e/dds_family_case.py.
"""

import os
import re
import unittest

from dds_family_case import (DEADLINE_S, MODEST, PING_PONG, STRANGER, DdsFamilyRefusals,
                             DdsFamilyTestCase, unique_topic)

SHORT = ["--mode", "ping-pong", "--count", "200", "--warmup-count", "20", "--probe-timeout", "5"]


class FastDdsTestCase(DdsFamilyTestCase):
    TRANSPORT = "fastdds"


class LocalPairTest(FastDdsTestCase):
    def test_two_publishers_each_on_topics_of_their_own(self):
        self.assert_two_publishers_lose_nothing("--fastdds", "--fastdds-history", "keep-all",
                                                *MODEST, deadline_s=DEADLINE_S)

    def test_reliable_ping_pong_echoes_every_probe_and_times_discovery(self):
        _, notes = self.assert_reliable_ping_pong_times_discovery()
        self.assertIn("eProsima Fast DDS 2.", notes)
        self.assertIn("QoS reliable, keep-all", notes)  # fastdds's default history
        self.assertIn("notification: --fastdds-notify waitset", notes)

    def test_listener_ping_pong_answers_on_fast_dds_thread_and_says_so(self):
        result = self.run_netprof("--local-pair", "--fastdds", "--fastdds-notify", "listener",
                                  *PING_PONG, json_name="listener", deadline_s=DEADLINE_S)
        report = self.assert_ping_pong_passed(result, "fastdds", 300)
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("notification: --fastdds-notify listener", notes)
        handed = re.search(r"(\d+) of (\d+) samples handed over on Fast DDS's receive thread",
                           notes)
        self.assertIsNotNone(handed, notes)
        self.assertGreater(int(handed.group(1)), 0, notes)
        # Each next probe went out from there too, as the echo before it arrived.
        publisher = report["publisher"]
        self.assertGreaterEqual(publisher["probes_relayed"], publisher["probes_sent"] * 9 // 10)

    def test_poll_ping_pong_passes(self):
        result = self.run_netprof("--local-pair", "--fastdds", "--fastdds-notify", "poll", *SHORT,
                                  json_name="poll", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "fastdds", 200)

    def test_best_effort_stream_names_its_qos(self):
        self.assert_best_effort_stream_names_its_qos("--reliability", "best-effort",
                                                     "--history", "keep-last:8")

    def test_large_samples_are_fragmented_and_arrive(self):
        # 256 KiB: several UDP datagrams per sample, which Fast DDS fragments and reassembles.
        result = self.run_netprof("--local-pair", "--fastdds", "-s", "262144", *SHORT,
                                  json_name="large", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "fastdds", 200)


class TwoProcessTest(FastDdsTestCase):
    def test_two_subscribers_each_get_everything(self):
        self.assert_two_subscribers_each_get_everything()

    def test_mismatched_reliability_is_named_on_both_sides_before_wait(self):
        self.assert_mismatched_reliability_named()


class StrangerTest(FastDdsTestCase):
    @unittest.skipUnless(os.access(STRANGER, os.X_OK), "dds_stranger is not built")
    def test_garbage_samples_on_both_topics_are_rejected_and_the_run_passes(self):
        topic = unique_topic()
        self._processes.start([STRANGER, topic, "60"])  # killed in cleanup
        # The Cyclone stranger (dds_family_case.STRANGER) reaches a Fast DDS run over RTPS, as any
        # DDS vendor's writer would. keep-all: under keep-last:16 the stranger's 1,000 samples/s may push a genuine echo
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
        self.assert_stranger_run_passed(pub, sub)


class RefusalTest(DdsFamilyRefusals, FastDdsTestCase):
    def test_unknown_notify(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "--fastdds-notify", "callback"], 2,
                            "--fastdds-notify", "callback")

    def test_generic_qos_contradicting_its_own(self):
        self.assert_refused_in_one_line(["-i", "1", "--fastdds", "--fastdds-reliability", "reliable",
                             "--reliability", "best-effort"], 2,
                            "contradicts --fastdds-reliability reliable")


if __name__ == "__main__":
    unittest.main()
