"""End-to-end: `--format madara` (issue 19, part 3). A real publisher and subscriber over UDP
loopback print MADARA network_profiler's report, and this test reads it the way a script
written for network_profiler would: regular expressions on the field lines, integers for the
latency in ns, "packets/s" and "B/s" for the rates, "Test: SUCCESS" or "Test: FAIL.". The
figures must be the ones the JSON report gives.
"""

import math
import re
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

MODEST = ["--send-hz", "2000", "-t", "1", "--warmup-time", "0.2", "-s", "256"]

# What a script written for MADARA's report matches, field by field.
FIELDS = {
    "transport": r"^  Transport type: (.+)$",
    "buffer": r"^  Buffer size: (\d+) B$",
    "data_size": r"^  Data size: (\d+) B$",
    "test_time": r"^  Test time: ([0-9.]+) s$",
    "num_vars": r"^  Num vars: (\d+)$",
    "min": r"^  Min: (\d+) ns$",
    "avg": r"^  Avg: (\d+) ns$",
    "max": r"^  Max: (\d+) ns$",
    "received": r"^  Messages received: (\d+)$",
    "message_rate": r"^  Message rate: ([0-9.]+) packets/s$",
    "data_received": r"^  Data received: (\d+) B$",
    "data_rate": r"^  Data rate: ([0-9.]+) B/s$",
}


def llround(value):
    """C's llround for the non-negative figures here: halves go up (Python's round goes even)."""
    return math.floor(value + 0.5)


def parse_like_madara_script(text):
    """{field: the first match's value}, as `grep -m1` and a regex would give it."""
    found = {}
    for name, pattern in FIELDS.items():
        match = re.search(pattern, text, re.MULTILINE)
        if match:
            found[name] = match.group(1)
    hosts = re.search(r"^  Hosts: \n((?:    .+\n)+)", text, re.MULTILINE)
    found["hosts"] = hosts.group(1).split() if hosts else []
    return found


class MadaraFormatTest(NetprofTestCase):
    def run_pair(self, wiki_form=False):
        """Publisher and subscriber 1 over UDP loopback, both --format madara. The usual form
        names the publisher on the subscriber; the MADARA wiki's names only its own address."""
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        sub_addr = f"127.0.0.1:{free_udp_port()}"
        # The subscriber is given no -s or -t: it reports the run's, as the publisher described
        # them.
        sub_args = ["-i", "1", "-u", sub_addr] + ([] if wiki_form else ["-u", pub_addr])
        pub_args = ["-i", "0", "-u", pub_addr] + (["-u", sub_addr] if wiki_form else [])
        subscriber, sub_json = self.start(*sub_args, "--wait", "20", "--format", "madara",
                                          json_name="sub")
        publisher, pub_json = self.start(*pub_args, *MODEST, "--wait", "20", "--format",
                                         "madara", json_name="pub")
        pub = self.finish(publisher, pub_json)
        sub = self.finish(subscriber, sub_json)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        return pub, sub, pub_addr, sub_addr

    def assert_madara_report(self, text, figures, hosts):
        self.assertEqual(text.splitlines()[0], "Test: SUCCESS", text)
        for section in ("Settings:", "Latency:", "Throughput:"):
            self.assertRegex(text, rf"(?m)^{section}$")
        parsed = parse_like_madara_script(text)
        self.assertEqual(set(FIELDS) - set(parsed), set(), text)
        self.assertEqual(parsed["transport"], "UDP")
        self.assertEqual(int(parsed["buffer"]), 1000000)
        self.assertEqual(int(parsed["data_size"]), 256)
        self.assertEqual(int(parsed["num_vars"]), 1)
        self.assertEqual(float(parsed["test_time"]), 1.0)
        self.assertEqual(sorted(parsed["hosts"]), sorted(hosts))
        low, mean, high = (int(parsed[name]) for name in ("min", "avg", "max"))
        self.assertGreater(low, 0, text)
        self.assertLessEqual(low, mean)
        self.assertLessEqual(mean, high)
        self.assertEqual(int(parsed["received"]), figures["received"])
        self.assertEqual(int(parsed["data_received"]), figures["payload_bytes"])
        self.assertAlmostEqual(float(parsed["message_rate"]),
                               figures["throughput"]["messages_per_second"], delta=0.001)
        self.assertAlmostEqual(float(parsed["data_rate"]),
                               figures["throughput"]["payload_bytes_per_second"], delta=0.001)
        return low, mean, high

    def test_publisher_and_subscriber_print_madaras_report(self):
        pub, sub, pub_addr, sub_addr = self.run_pair()
        [pub_view] = pub.json["subscribers"]
        self.assertEqual(pub.json["settings"]["format"], "madara")

        # The subscriber's latency is MADARA's: its receive time minus the send stamp.
        own = sub.json["subscriber"]
        low, mean, high = self.assert_madara_report(sub.stdout, own, [sub_addr, pub_addr])
        one_way = own["latency"]["receive_minus_send_ns"]
        self.assertEqual(one_way["count"], own["received"])
        self.assertEqual((low, high), (one_way["min"], one_way["max"]))
        self.assertEqual(mean, llround(one_way["mean"]))
        self.assertIn("valid only when publisher and subscriber share a host's clock",
                      sub.stdout)

        # The publisher's is half the round trip, whole ns.
        low, mean, high = self.assert_madara_report(pub.stdout, pub_view, [pub_addr, sub_addr])
        rtt = pub.json["publisher"]["latency"]["rtt_ns"]
        self.assertEqual(low, llround(rtt["min"] / 2))
        self.assertEqual(high, llround(rtt["max"] / 2))
        self.assertIn("half the round trip (RTT/2)", pub.stdout)
        self.assertEqual(int(parse_like_madara_script(pub.stdout)["received"]), own["received"])

    def test_the_wikis_unicast_pair(self):
        pub, sub, pub_addr, sub_addr = self.run_pair(wiki_form=True)
        self.assert_madara_report(sub.stdout, sub.json["subscriber"], [sub_addr, pub_addr])
        self.assert_madara_report(pub.stdout, pub.json["subscribers"][0], [pub_addr, sub_addr])

    def test_a_subscriber_without_publisher_prints_madaras_fail_line(self):
        result = self.run_netprof("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}",
                                  "-u", f"127.0.0.1:{free_udp_port()}", "--wait", "1",
                                  "--format", "madara", deadline_s=20)
        self.assertEqual(result.returncode, 3)
        lines = result.stdout.splitlines()
        self.assertIn("Test: FAIL.", lines, result.stdout)
        verdict = lines.index("Test: FAIL.")
        self.assertGreater(verdict, 0, "the reason comes before the verdict, as in MADARA")
        self.assertIn("no publisher was heard", lines[0])
        self.assertNotRegex(result.stdout, r"(?m)^  Min: ", "no latency figure was measured")

    def test_local_pair_prints_the_publishers_madara_report(self):
        result = self.run_netprof("--local-pair", *MODEST, "--format", "madara")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines()[0], "Test: SUCCESS")
        parsed = parse_like_madara_script(result.stdout)
        self.assertEqual(set(FIELDS) - set(parsed), set(), result.stdout)

    def test_netprof_stays_the_default_format(self):
        result = self.run_netprof("--local-pair", *MODEST, json_name="default")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # The heading leads with one-way across clocks when the offset's bound is small against
        # the median, which a loaded host changes; the round trip is named either way.
        self.assertRegex(result.stdout, r"(?m)^Latency: .*round trip on the publisher's clock")
        self.assertNotRegex(result.stdout, r"packets/s")
        self.assertEqual(result.json["settings"]["format"], "netprof")

    def test_an_unknown_format_is_refused(self):
        result = self.run_netprof("--local-pair", "--format", "csv")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertTrue(result.stderr.startswith("netprof: "), result.stderr)
        self.assertIn("--format", result.stderr)


if __name__ == "__main__":
    unittest.main()
