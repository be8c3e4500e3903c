"""End-to-end: several publishers (--publishers P). Ids 0 to P-1 publish, each on a stream of
its own; every subscriber receives all of them, each on a thread of its own, and counts each
one's loss apart. Real processes on loopback (TCP) and Unix-domain sockets in the test's own
folder."""

import os
import signal
import time
import unittest

from netprof_test_case import NetprofTestCase

DEADLINE_S = 60
MODEST = ["-t", "1", "--send-hz", "2000", "--warmup-time", "0.2"]


def socket_place(test, name):
    """A Unix-domain socket path in the test's own folder, removed with it."""
    return os.path.join(os.path.dirname(test.json_path("x")), name + ".sock")


class PublishersTest(NetprofTestCase):
    def uds_place(self):
        return socket_place(self, "publishers")

    def start_publisher(self, publisher_id, place, *extra):
        return self.start("-i", str(publisher_id), "--publishers", "2", "--uds", place,
                          "--subscribers", "1", *extra, json_name=f"publisher{publisher_id}")

    # The target: every subscriber reports both publishers with 0 lost, and each
    # publisher's latency is in the report.
    def test_a_local_group_of_two_publishers_and_three_subscribers(self):
        result = self.run_netprof("--local-pair", "--tcp", "--publishers", "2", "--subscribers",
                                  "3", *MODEST, json_name="group", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        publishers = result.json["publishers"]
        self.assertEqual([p["id"] for p in publishers], [0, 1])
        for publisher in publishers:
            self.assertEqual(publisher["result"]["status"], "SUCCESS", publisher["result"])
            sent = publisher["publisher"]["messages_sent"]
            self.assertGreater(sent, 0)
            self.assertGreater(publisher["publisher"]["latency"]["rtt_ns"]["p50"], 0)
            subscribers = publisher["subscribers"]
            self.assertEqual(sorted(s["id"] for s in subscribers), [2, 3, 4])
            for subscriber in subscribers:
                self.assertEqual(subscriber["unique"], sent, subscriber)
                self.assertEqual(subscriber["lost"], 0, subscriber)
        # Publisher 0's report first, then publisher 1's, each whole.
        self.assertEqual(result.stdout.count("Test: SUCCESS"), 2, result.stdout)
        first = result.stdout.index("Role: publisher id 0")
        self.assertLess(first, result.stdout.index("Role: publisher id 1"))
        self.assertIn("Local pair: 2 publisher and 3 subscriber processes", result.stdout)
        # The gathered JSON stands alone: no report of a later publisher is left beside it.
        self.assertFalse(os.path.exists(self.json_path("group") + ".1"))

    def test_a_local_group_over_zeromq_ipc(self):
        # zmq's ipc:// paths take .k per stream, as its tcp:// ports move up by 2k.
        result = self.run_netprof("--local-pair", "--zmq", "ipc://*", "--publishers", "2",
                                  "--subscribers", "2", *MODEST, json_name="zmq",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for publisher in result.json["publishers"]:
            sent = publisher["publisher"]["messages_sent"]
            self.assertEqual([(s["id"], s["unique"], s["lost"]) for s in publisher["subscribers"]],
                             [(2, sent, 0), (3, sent, 0)])

    def test_one_subscriber_counts_each_publisher_apart(self):
        place = self.uds_place()
        publishers = [self.start_publisher(i, place, *MODEST) for i in (0, 1)]
        subscriber = self.run_netprof("-i", "2", "--publishers", "2", "--uds", place,
                                      json_name="subscriber", deadline_s=DEADLINE_S)
        self.assertEqual(subscriber.returncode, 0, subscriber.stdout + subscriber.stderr)
        streams = subscriber.json["subscriber"]["per_publisher"]
        self.assertEqual([s["publisher"] for s in streams], [0, 1])
        self.assertEqual([s["address"] for s in streams], [place, place + ".1"])
        for (process, path), stream in zip(publishers, streams):
            published = self.finish(process, path, DEADLINE_S)
            self.assertEqual(published.returncode, 0, published.stdout + published.stderr)
            sent = published.json["publisher"]["messages_sent"]
            self.assertEqual(stream["unique"], sent, stream)
            self.assertEqual(stream["lost"], 0, stream)
            self.assertTrue(stream["end_received"], stream)
        self.assertIn("Per publisher (the figures above are publisher 0's stream):",
                      subscriber.stdout)

    def test_a_publisher_that_never_comes_is_named_and_the_other_finishes(self):
        place = self.uds_place()
        process, path = self.start_publisher(0, place, *MODEST, "--wait", "2")
        subscriber = self.run_netprof("-i", "2", "--publishers", "2", "--uds", place, "--wait",
                                      "2", json_name="subscriber", deadline_s=DEADLINE_S)
        self.assertEqual(subscriber.returncode, 3, subscriber.stdout + subscriber.stderr)
        problems = subscriber.json["result"]["problems"]
        self.assertTrue(any(p.startswith("publisher 1: no publisher was heard") for p in problems),
                        problems)
        self.assertEqual(subscriber.json["subscriber"]["per_publisher"][0]["lost"], 0)
        # Publisher 0 ran its own stream through, and its verdict, the run's, names the missing
        # one: its report never came.
        published = self.finish(process, path, DEADLINE_S)
        self.assertEqual(published.returncode, 3, published.stdout + published.stderr)
        self.assertEqual(published.json["result"]["problems"],
                         [p for p in published.json["result"]["problems"]
                          if p.startswith("publisher 1: no report reached publisher 0")])
        self.assertEqual(len(published.json["result"]["problems"]), 1)
        own, missing = published.json["publishers"]
        self.assertEqual(own["result"]["status"], "SUCCESS")
        self.assertEqual((missing["id"], missing["result"], missing["publisher"]), (1, None, None))

    def test_a_publisher_that_dies_mid_run_is_named(self):
        place = self.uds_place()
        steady, steady_path = self.start_publisher(0, place, "-t", "3", "--send-hz", "1000",
                                                   "--wait", "2")
        doomed, _ = self.start_publisher(1, place, "-t", "3", "--send-hz", "1000")
        subscriber, path = self.start("-i", "2", "--publishers", "2", "--uds", place,
                                      "--idle-timeout", "1", json_name="subscriber")
        time.sleep(1.5)
        doomed.send_signal(signal.SIGKILL)
        result = self.finish(subscriber, path, DEADLINE_S)
        self.assertNotEqual(result.returncode, 0, result.stdout + result.stderr)
        problems = result.json["result"]["problems"]
        self.assertTrue(problems and all(p.startswith("publisher 1: ") for p in problems),
                        problems)
        self.assertFalse(result.json["subscriber"]["per_publisher"][1]["end_received"])
        published = self.finish(steady, steady_path, DEADLINE_S)
        self.assertEqual(published.returncode, 3, published.stdout + published.stderr)
        [problem] = published.json["result"]["problems"]
        self.assertTrue(problem.startswith("publisher 1: no report reached publisher 0"), problem)

    def test_what_cannot_run_is_refused_before_anything_starts(self):
        # By hand, with no address, every publisher would take the default multicast group.
        self.assert_refused_in_one_line(["-i", "0", "--publishers", "2"], 2,
                                        "give the multicast transport's -m/--multicast")
        self.assert_refused_in_one_line(["--publishers", "0"], 2, "--publishers")
        self.assert_refused_in_one_line(["--local-pair", "--threads", "--publishers", "2"], 2,
                                        "--local-pair --threads runs one publisher")
        self.assert_refused_in_one_line(
            ["-i", "2", "--publishers", "3", "--tcp", "127.0.0.1:65534"], 2,
            "stream 2 (publisher p's topic t is stream p*T+t) would need port 65536")


class TopicsTest(NetprofTestCase):
    """--topics T: each publisher's T independent streams, each measured apart."""

    def assert_topics_complete(self, publisher_report, topics, subscriber_ids):
        per_topic = publisher_report["per_topic"]
        self.assertEqual([t["topic"] for t in per_topic], list(range(topics)))
        for topic in per_topic:
            self.assertTrue(topic["success"], topic)
            self.assertGreater(topic["latency"]["rtt_ns"]["p50"], 0, topic)
            self.assertEqual(sorted(s["id"] for s in topic["subscribers"]), subscriber_ids)
            for subscriber in topic["subscribers"]:
                self.assertEqual(subscriber["unique"], topic["messages_sent"], subscriber)
                self.assertEqual(subscriber["lost"], 0, subscriber)

    def test_a_publisher_of_three_topics_and_two_subscribers(self):
        result = self.run_netprof("--local-pair", "--tcp", "--topics", "3", "--subscribers", "2",
                                  *MODEST, json_name="topics", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assert_topics_complete(result.json["publisher"], 3, [1, 2])
        addresses = [t["address"] for t in result.json["publisher"]["per_topic"]]
        self.assertEqual(len(set(addresses)), 3, addresses)  # each topic its own port
        self.assertIn("Per topic (the figures above are topic 0's):", result.stdout)

    def test_two_publishers_of_two_topics_each(self):
        result = self.run_netprof("--local-pair", "--publishers", "2", "--topics", "2",
                                  "--subscribers", "2", *MODEST, json_name="group",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for publisher in result.json["publishers"]:
            self.assert_topics_complete(publisher["publisher"], 2, [2, 3])

    def test_a_subscriber_lists_each_topic_and_a_silent_one_is_named(self):
        place = socket_place(self, "topics")
        process, path = self.start("-i", "0", "--topics", "2", "--uds", place, *MODEST,
                                   json_name="publisher")
        subscriber = self.run_netprof("-i", "1", "--topics", "2", "--uds", place,
                                      json_name="subscriber", deadline_s=DEADLINE_S)
        self.assertEqual(subscriber.returncode, 0, subscriber.stdout + subscriber.stderr)
        streams = subscriber.json["subscriber"]["per_publisher"]
        self.assertEqual([(s["publisher"], s["topic"]) for s in streams], [(0, 0), (0, 1)])
        self.assertEqual([s["address"] for s in streams], [place, place + ".1"])
        self.assertTrue(all(s["lost"] == 0 and s["end_received"] for s in streams), streams)
        published = self.finish(process, path, DEADLINE_S)
        self.assertEqual(published.returncode, 0, published.stdout + published.stderr)
        # A subscriber expecting a third topic nobody sends fails, naming it.
        process, path = self.start("-i", "0", "--topics", "2", "--uds", place, *MODEST,
                                   json_name="publisher")
        subscriber = self.run_netprof("-i", "1", "--topics", "3", "--uds", place, "--wait", "2",
                                      json_name="subscriber3", deadline_s=DEADLINE_S)
        self.assertEqual(subscriber.returncode, 3, subscriber.stdout + subscriber.stderr)
        self.assertTrue(any(p.startswith("topic 2: ")
                            for p in subscriber.json["result"]["problems"]),
                        subscriber.json["result"]["problems"])
        self.finish(process, path, DEADLINE_S)

    def test_what_cannot_run_is_refused(self):
        self.assert_refused_in_one_line(["-i", "0", "--topics", "2", "--shm"], 2,
                                        "give the shm transport's --shm NAME")
        self.assert_refused_in_one_line(["--topics", "17"], 2, "--topics")
        self.assert_refused_in_one_line(["--local-pair", "--threads", "--topics", "2"], 2,
                                        "--local-pair --threads runs one stream")


if __name__ == "__main__":
    unittest.main()
