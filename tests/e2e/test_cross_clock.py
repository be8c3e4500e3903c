"""End-to-end: one-way latency across clocks on one host (issue 23). A local pair shares one
CLOCK_MONOTONIC, so the estimated offset must come out about 0, within its bound, and each
direction's one-way figures must be positive and add up to about the round trip. The
asymmetric case (one direction queued) needs two hosts: tests/e2e/test_multihost.py."""

import unittest

from netprof_test_case import NetprofTestCase

DEADLINE_S = 30
LABEL = "One-way across clocks, offset estimated from the "


class CrossClockTest(NetprofTestCase):
    def check_one_host(self, *args):
        result = self.run_netprof("--local-pair", *args, json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [subscriber] = result.json["subscribers"]
        latency = subscriber["latency"]
        cross = latency["cross_clock"]
        self.assertIsNotNone(cross, "the echoes carried no stamps")
        offset, bound = cross["offset_ns"], cross["bound_ns"]
        forward, backward = cross["forward_ns"], cross["backward_ns"]
        # From the probes' actual send times, as the one-way figures are (with --send-hz the
        # per-subscriber RTT starts when each probe was due, so sender stalls count in it).
        rtt = result.json["publisher"]["latency"]["rtt_uncorrected_ns"]
        print(f"\n{args}: offset {offset} ns ± {bound} ns from {cross['exchanges_used']} of "
              f"{cross['exchanges']} exchanges; forward p50 {forward['p50']} ns, backward p50 "
              f"{backward['p50']} ns, RTT/2 p50 {latency['one_way_ns']['p50']} ns")
        self.assertLessEqual(abs(offset), bound, "one clock: the offset is 0 within its bound")
        self.assertGreaterEqual(2 * bound, cross["min_delay_ns"], "never narrower")
        self.assertLessEqual(bound, rtt["p50"], "the best exchange is no worse than the median")
        self.assertEqual(cross["exchanges_used"], 8)
        self.assertGreater(cross["exchanges"], subscriber["echoes"], "warm-up exchanges count")
        self.assertEqual(cross["out_of_range"], 0)
        for name, direction in (("forward", forward), ("backward", backward)):
            with self.subTest(direction=name):
                self.assertEqual(direction["count"], subscriber["echoes"])
                self.assert_latency_ordered(direction)
                self.assertGreater(direction["p50"], 0)
                # One direction takes no more than the whole round trip.
                self.assertLessEqual(direction["p50"], rtt["p50"] + bound)
        # Both directions together are the round trip less the subscriber's turnaround: at
        # the median, somewhere between half and all of it (the medians need not add up).
        both = forward["p50"] + backward["p50"]
        self.assertGreater(both, 0.5 * rtt["p50"] - 2 * bound)
        self.assertLess(both, 1.5 * rtt["p50"] + 2 * bound)
        # The subscriber's own time inside each round trip, on its clock alone: there for
        # every measured echo, and a part of the round trip, not all of it.
        turnaround = cross["turnaround_ns"]
        self.assertEqual(turnaround["count"], subscriber["echoes"])
        self.assert_latency_ordered(turnaround)
        self.assertGreater(turnaround["p50"], 0)
        self.assertLess(turnaround["p50"], rtt["p50"])
        self.assertIn("Subscriber's turnaround (its arrival stamp to its echo stamp, inside each "
                      "round trip): p50 ", result.stdout)
        self.assertIn(LABEL + "8 exchanges with the smallest round trip", result.stdout)
        self.assertIn("Clock offset (subscriber - publisher): ", result.stdout)

    def test_stream_on_one_host(self):
        self.check_one_host("-t", "1", "--warmup-time", "0.2", "--send-hz", "20000")

    def test_ping_pong_on_one_host(self):
        self.check_one_host("--mode", "ping-pong", "--count", "2000", "--warmup-count", "200")


if __name__ == "__main__":
    unittest.main()
