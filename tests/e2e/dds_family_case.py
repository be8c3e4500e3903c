"""What the end-to-end tests of both DDS transports share (dds: Cyclone, transports/dds/tests;
fastdds: Fast DDS, transports/fastdds/tests, alone and with Cyclone): the run options, topics of
a run's own, the refusals both make alike, and the checks of a run each vendor passes the same
way. A test case names its transport in TRANSPORT ("dds", "fastdds"): its options are
--TRANSPORT, --TRANSPORT-loopback, ...

Not a test itself (no test_ prefix); here beside stream_test_case.py and broker_test_case.py,
as neither transport owns it.
"""

import os
import time
import uuid

from netprof_test_case import NETPROF, NetprofTestCase

DEADLINE_S = 30
# A generous probe timeout, so that an echo only late on a loaded machine (or under ASan) is not
# counted as lost: what these tests check is that DDS carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]
MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
# The largest payload netprof's DDS samples carry (DdsEndpoint::max_payload_size, and
# FastDdsEndpoint's, the same).
MAX_PAYLOAD = 1024 * 1024

# A Cyclone DDS stranger (transports/dds/tests/dds_stranger.cpp) writing random samples of the
# run's type to both topics, built beside netprof; it reaches a Fast DDS run over RTPS too.
STRANGER = os.path.join(os.path.dirname(os.path.abspath(NETPROF)), "tests", "contract", "dds",
                        "dds_stranger")


def unique_topic():
    return "netprof_e2e_" + uuid.uuid4().hex


class DdsFamilyTestCase(NetprofTestCase):
    TRANSPORT = None  # "dds" or "fastdds", set by each transport's test case

    def option(self, name):
        """--TRANSPORT-NAME."""
        return f"--{self.TRANSPORT}-{name}"

    def two_terminal(self, *extra):
        """The options of a two-terminal run on loopback with topics of its own."""
        return [f"--{self.TRANSPORT}", unique_topic(), self.option("loopback"), *extra]

    def assert_reliable_ping_pong_times_discovery(self):
        """A reliable ping-pong local pair echoes every probe and times discovery: its result
        and the endpoint's notes, joined."""
        result = self.run_netprof("--local-pair", f"--{self.TRANSPORT}", *PING_PONG,
                                  json_name="pingpong", deadline_s=DEADLINE_S)
        endpoint = self.assert_ping_pong_passed(result, self.TRANSPORT, 300)["endpoint"]
        self.assertGreater(endpoint["discovery_seconds"], 0)
        self.assertLess(endpoint["discovery_seconds"], DEADLINE_S)
        notes = " ".join(endpoint["notes"])
        self.assertIn(self.option("loopback"), notes)
        return result, notes

    def assert_best_effort_stream_names_its_qos(self, *qos):
        """A stream local pair given `qos` (best-effort, keep-last:8) passes and says so."""
        result = self.run_netprof("--local-pair", f"--{self.TRANSPORT}", *qos, *MODEST,
                                  json_name="stream", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        notes = " ".join(result.json["endpoint"]["notes"])
        self.assertIn("QoS best-effort, keep-last:8", notes)
        [subscriber] = result.json["subscribers"]
        self.assertGreater(subscriber["received"], 0)

    def assert_two_subscribers_each_get_everything(self):
        """A publisher and two subscribers in processes of their own, on domain 7, keep-all."""
        options = self.two_terminal(self.option("domain"), "7", self.option("history"), "keep-all")
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

    def assert_mismatch_named_before_wait(self, publisher_options, subscriber_options):
        """A best-effort publisher (`publisher_options`) and a reliable subscriber: both end
        with exit status 3, naming the mismatch, well before --wait. Their results."""
        start = time.monotonic()
        publisher, pub_json = self.start("-i", "0", *publisher_options, "--wait", "25",
                                         *MODEST, json_name="pub")
        subscriber, sub_json = self.start("-i", "1", *subscriber_options, "--wait", "25",
                                          json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertLess(time.monotonic() - start, 15, "waited for --wait instead")
        self.assertEqual(pub.returncode, 3, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 3, sub.stdout + sub.stderr)
        self.assertIn("a subscriber is reliable and this publisher best-effort", pub.stdout)
        self.assertIn("the publisher is best-effort and this subscriber reliable", sub.stdout)
        return pub, sub

    def assert_mismatched_reliability_named(self):
        """The same, both processes of this transport: the subscriber names its option."""
        topic = unique_topic()
        vendor = [f"--{self.TRANSPORT}", topic, self.option("loopback")]
        _, sub = self.assert_mismatch_named_before_wait(
            [*vendor, self.option("reliability"), "best-effort"], vendor)
        self.assertIn(self.option("reliability"), sub.stdout)

    def assert_stranger_run_passed(self, pub, sub):
        """A ping-pong run beside the stranger passes, and both processes saw its samples."""
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(pub.json["publisher"]["echoes_received"], 300)
        [summary] = pub.json["subscribers"]
        self.assertEqual(summary["lost"], 0)
        self.assertGreater(pub.json["rejected"], 0, "the stranger's echo samples went unseen")
        self.assertGreater(sub.json["rejected"], 0, "the stranger's data samples went unseen")


class DdsFamilyRefusals:
    """The refusals both DDS transports make alike, each in one line with exit status 2: mixed
    into a transport's DdsFamilyTestCase (alone it is no test case, so it runs nowhere else)."""

    def test_domain_out_of_range(self):
        self.assert_refused_in_one_line(["-i", "0", f"--{self.TRANSPORT}", self.option("domain"),
                                         "233"], 2, self.option("domain"), "233")

    def test_payload_over_the_limit(self):
        self.assert_refused_in_one_line(["--local-pair", f"--{self.TRANSPORT}", "-s",
                                         str(MAX_PAYLOAD + 1), "-t", "1"], 2,
                                        f"at most {MAX_PAYLOAD} B", self.TRANSPORT)

    def test_bad_history(self):
        self.assert_refused_in_one_line(["-i", "1", f"--{self.TRANSPORT}", self.option("history"),
                                         "keep-last:0"], 2, self.option("history"), "keep-last:N")

    def test_bad_topic_name(self):
        self.assert_refused_in_one_line(["-i", "1", f"--{self.TRANSPORT}", "no spaces"], 2,
                                        f"--{self.TRANSPORT}")
