"""End-to-end: --reliability and --history on real local pairs. A request a transport cannot
honour is refused with exit status 2 and one line saying why, before any process starts; an
accepted one shows in the JSON's endpoint.qos and the text report's QoS line, and the
transport does what it says: over a shared-memory ring of 21 records, a publisher that is not
paced makes a keep-last (best-effort) subscriber lose messages and a keep-all (reliable) one
lose none.

Every run is a local pair, which removes its own segment; JSON files live in the test's
temporary directory.
"""

import unittest

from netprof_test_case import NetprofTestCase

DEADLINE_S = 30
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30"]
# A 4096 B ring holds 21 records of 180 B messages (192 B each): a subscriber woken from a
# futex falls that far behind an unpaced publisher within a second.
SMALL_RING = ["-q", "4096", "-t", "1", "--warmup-time", "0.2"]


class QosTestCase(NetprofTestCase):
    def assert_refused(self, args, *phrases):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, lines[0])
        self.assertEqual(result.stdout, "")

    def run_pair(self, name, *args):
        result = self.run_netprof("--local-pair", *args, json_name=name, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return result


class RefusalTest(QosTestCase):
    def test_udp_refuses_reliable(self):
        self.assert_refused(["--local-pair", "--reliability", "reliable"],
                            "--reliability reliable is not available on udp",
                            "no retransmission")

    def test_tcp_refuses_best_effort(self):
        self.assert_refused(["--local-pair", "--tcp", "127.0.0.1:0", "--reliability",
                             "best-effort"],
                            "--reliability best-effort is not available on tcp",
                            "never drops")

    def test_shm_refuses_what_contradicts_its_history(self):
        self.assert_refused(["--local-pair", "--shm", "--shm-history", "keep-last",
                             "--reliability", "reliable"],
                            "--reliability reliable contradicts --shm-history keep-last")

    def test_a_depth_of_zero_is_refused(self):
        self.assert_refused(["--local-pair", "--zmq", "ipc://*", "--history", "keep-last:0"],
                            "invalid value 'keep-last:0' for --history")

    def test_a_lone_subscriber_is_refused_too(self):
        self.assert_refused(["-i", "1", "-u", "127.0.0.1:0", "-u", "127.0.0.1:9",
                             "--history", "keep-all"],
                            "--history keep-all is not available on udp")


class StatedQosTest(QosTestCase):
    def test_the_default_is_stated_too(self):
        result = self.run_pair("udp-default", *PING_PONG)
        qos = result.json["endpoint"]["qos"]
        self.assertEqual(qos["reliability"], "best-effort")
        self.assertEqual(qos["history"], "none")
        self.assertIsNone(qos["depth"])
        self.assertEqual(qos["set_by"], "transport")
        self.assertEqual(qos["requested"], {"reliability": None, "history": None})
        self.assertIn("  QoS: best-effort, history none (set by the transport; asked: none)",
                      result.stdout)

    def test_zmq_keep_last_depth_is_the_high_water_mark(self):
        result = self.run_pair("zmq-depth", "--zmq", "tcp://127.0.0.1:*", "--history",
                               "keep-last:8", *PING_PONG)
        endpoint = result.json["endpoint"]
        self.assertEqual(endpoint["qos"]["reliability"], "best-effort")
        self.assertEqual(endpoint["qos"]["history"], "keep-last")
        self.assertEqual(endpoint["qos"]["depth"], 8)
        self.assertEqual(endpoint["qos"]["set_by"], "publisher")
        self.assertEqual(endpoint["qos"]["requested"],
                         {"reliability": None, "history": "keep-last:8"})
        self.assertIn("high-water mark 8 messages per peer and direction (--history keep-last:8)",
                      " ".join(endpoint["notes"]))
        self.assertEqual(result.json["subscribers"][0]["lost"], 0)


class BehaviourTest(QosTestCase):
    """The mapping does what it says on a real ring: shm reliable is keep-all, best-effort is
    keep-last."""

    def test_shm_reliable_loses_nothing_where_best_effort_loses(self):
        reliable = self.run_pair("shm-reliable", "--shm", "--reliability", "reliable",
                                 *SMALL_RING).json
        best_effort = self.run_pair("shm-best-effort", "--shm", "--reliability", "best-effort",
                                    *SMALL_RING).json

        self.assertEqual(reliable["endpoint"]["qos"]["history"], "keep-all")
        self.assertIn("history keep-all", " ".join(reliable["endpoint"]["notes"]))
        [subscriber] = reliable["subscribers"]
        self.assertGreater(subscriber["received"], 0)
        self.assertEqual(subscriber["lost"], 0)

        self.assertEqual(best_effort["endpoint"]["qos"]["history"], "keep-last")
        self.assertIn("history keep-last", " ".join(best_effort["endpoint"]["notes"]))
        [subscriber] = best_effort["subscribers"]
        self.assertGreater(subscriber["lost"], 0,
                           "an unpaced keep-last publisher never lapped a 21-record ring")


if __name__ == "__main__":
    unittest.main()
