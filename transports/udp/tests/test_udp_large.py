"""End-to-end: messages larger than one UDP datagram over the unicast local pair.

The transport splits each message into fragments of --fragment-size payload bytes (default
62000), each with its own 28-byte header, and the subscriber reassembles them. The JSON says
how many datagrams and wire bytes carried the messages, so the split is checked exactly.
"""

import os
import unittest

from netprof_test_case import NetprofTestCase

HEADER = 52          # netprof's own header, inside every message
FRAGMENT_HEADER = 28  # the UDP transport's, on every fragment
DEFAULT_FRAGMENT = 62000


def fragments(payload, fragment_size=DEFAULT_FRAGMENT):
    return -(-(payload + HEADER) // fragment_size)


def rmem_max():
    try:
        with open("/proc/sys/net/core/rmem_max") as f:
            return int(f.read())
    except OSError:
        return 0


class LargePayloadTest(NetprofTestCase):
    def run_pair(self, payload, *args, fragment_size=DEFAULT_FRAGMENT, deadline_s=40):
        result = self.run_netprof("--local-pair", "-s", payload, *args, json_name="large",
                                  deadline_s=deadline_s)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        sent = report["publisher"]["messages_sent"]
        [sub] = report["subscribers"]
        self.assertGreater(sent, 0)
        self.assertEqual(sub["received"], sent)
        self.assertEqual(sub["lost"], 0)
        self.assertEqual(sub["payload_bytes"], payload * sub["received"])
        per_message = fragments(payload, fragment_size)
        self.assertEqual(sub["datagrams"], sub["received"] * per_message)
        self.assertGreater(sub["wire_bytes"], sub["payload_bytes"])
        self.assertEqual(sub["wire_bytes"],
                         sub["received"] * (payload + HEADER + per_message * FRAGMENT_HEADER))
        self.assertGreater(report["publisher"]["echoes_received"], 0)
        return report

    def test_one_mebibyte(self):
        self.run_pair(1 << 20, "--count", "50", "--send-hz", "50", "-q", "8000000")

    def test_sixteen_mebibytes(self):
        # 271 fragments in a burst: the receive buffer must hold a whole message. Beyond
        # net.core.rmem_max only root gets it (SO_RCVBUFFORCE).
        needed = 64_000_000
        if os.geteuid() != 0 and rmem_max() < needed:
            self.skipTest(f"needs root, or net.core.rmem_max >= {needed} "
                          f"(it is {rmem_max()}), for -q {needed}")
        report = self.run_pair(16 << 20, "--count", "5", "--send-hz", "2", "-q", str(needed),
                               "--warmup-count", "1")
        self.assertGreaterEqual(report["endpoint"]["max_message_size"], (16 << 20) + HEADER)

    def test_fragment_size_option_reaches_both_processes(self):
        self.run_pair(100_000, "--count", "40", "--send-hz", "200", "-q", "4000000",
                      "--fragment-size", "8000", fragment_size=8000)

    def test_batched_small_messages_are_one_datagram_each(self):
        result = self.run_netprof("--local-pair", "-s", "64", "--count", "2000", "--send-hz",
                                  "4000", "--udp-batch", "16", json_name="batch")
        self.assertEqual(result.returncode, 0, result.stderr)
        [sub] = result.json["subscribers"]
        self.assertEqual(sub["received"], 2000)
        self.assertEqual(sub["datagrams"], 2000)
        self.assertEqual(sub["wire_bytes"], 2000 * (64 + HEADER))
        publisher = result.json["publisher"]
        self.assertEqual(publisher["echoes_received"], publisher["probes_sent"],
                         "batching must never hold back a probe")

    def test_payload_beyond_the_receive_buffer_is_refused_up_front(self):
        result = self.run_netprof("--local-pair", "-s", "3000000", "-q", "1000000", "--count", "1",
                                  deadline_s=20)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("-s 3000000 is too large for udp", result.stderr)


if __name__ == "__main__":
    unittest.main()
