"""End-to-end: the instrument names its own machinery (issue 29): how it paced (--pace) and how
late its sends were, which wait strategy it used, and a host too loaded to trust."""

import unittest

from netprof_test_case import NetprofTestCase


class PacingTest(NetprofTestCase):
    def test_a_paced_run_reports_its_pace_and_the_pacers_lateness(self):
        result = self.run_netprof("--local-pair", "--send-hz", "1000", "-t", "1",
                                  "--warmup-time", "0.2", json_name="paced")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Send rate: 1,000 Hz (--pace hybrid)", result.stdout)
        self.assertIn("Pacer lateness (actual send minus due time", result.stdout)
        report = result.json
        self.assertEqual(report["settings"]["pace"], "hybrid")
        lateness = report["publisher"]["pacer_lateness_ns"]
        self.assertEqual(lateness["count"], report["publisher"]["messages_sent"])
        self.assertLessEqual(lateness["p50"], lateness["p99"])
        self.assertLessEqual(lateness["p99"], lateness["max"])
        # --probe-hz 1000 (the default) at --send-hz 1000: every message is a probe, however
        # late the pacer sent some of them.
        self.assertEqual(report["publisher"]["probes_sent"], report["publisher"]["messages_sent"])
        self.assertFalse([w for w in report["result"]["warnings"] if "probes went out" in w])
        # The corrected round trip includes the lateness; the uncorrected one does not.
        corrected = report["publisher"]["latency"]["rtt_ns"]
        uncorrected = report["publisher"]["latency"]["rtt_uncorrected_ns"]
        self.assertLessEqual(uncorrected["p50"], corrected["p50"] * 1.001)

    def test_a_pacer_below_100_hz_keeps_its_schedule_over_the_socket_transports(self):
        # Their blocking read (SO_RCVTIMEO) counts in scheduler ticks and may end two ticks past
        # its timeout; a paced publisher that slept 20 ms in one sent every message about 4 ms
        # late (HZ 250), and the corrected round trip, 4 ms instead of 60 us, charged that to
        # the transport.
        for transport in ([], ["--tcp"], ["--uds"]):
            with self.subTest(transport=transport or "udp"):
                result = self.run_netprof("--local-pair", *transport, "--send-hz", "50", "-t",
                                          "1.2", "--warmup-time", "0.2",
                                          json_name="paced_50_" + "".join(transport).strip("-"))
                self.assertEqual(result.returncode, 0, result.stderr)
                publisher = result.json["publisher"]
                self.assertGreaterEqual(publisher["pacer_lateness_ns"]["count"], 40)
                self.assertLess(publisher["pacer_lateness_ns"]["p50"], 1_000_000)
                latency = publisher["latency"]
                self.assertLess(latency["rtt_ns"]["p50"] - latency["rtt_uncorrected_ns"]["p50"],
                                1_000_000)

    def test_pace_spin_at_a_rate_the_host_cannot_keep_names_the_rate_reached(self):
        result = self.run_netprof("--local-pair", "--pace", "spin", "--send-hz", "1e9",
                                  "-t", "0.5", "--warmup-time", "0", json_name="too_fast")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.json["settings"]["pace"], "spin")
        [shortfall] = [w for w in result.json["result"]["warnings"] if "--send-hz" in w]
        sent = result.json["publisher"]["messages_sent"]
        seconds = result.json["publisher"]["measured_seconds"]
        reached = f"{round(sent / seconds):,} msg/s"
        self.assertIn(reached, shortfall)

    def test_an_unknown_pace_is_a_usage_error(self):
        result = self.run_netprof("--local-pair", "--pace", "nap", "-t", "0.2")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--pace", result.stderr)


class WaitStrategyTest(NetprofTestCase):
    def test_report_and_json_name_the_wait_strategy(self):
        for strategy in ("block", "poll-then-block"):
            with self.subTest(strategy=strategy):
                result = self.run_netprof("--local-pair", "--mode", "ping-pong", "--count",
                                          "200", "--warmup-count", "10", "--wait-strategy",
                                          strategy, json_name=strategy)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn(f"Wait strategy: {strategy}\n", result.stdout)
                self.assertEqual(result.json["settings"]["wait_strategy"], strategy)
                self.assertEqual(result.json["publisher"]["echoes_received"], 200)


class OverloadTest(NetprofTestCase):
    def test_two_spinning_processes_on_one_cpu_are_warned_with_the_figures(self):
        # Both roles spin on CPU 0: each runs only when the scheduler takes the core from the
        # other, so every round trip is a time slice, and the report must say so.
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "-t", "1",
                                  "--warmup-time", "0", "--wait-strategy", "spin",
                                  "--cpu", "0,0", json_name="overloaded")
        self.assertIn(result.returncode, (0, 1), result.stderr)
        warnings = result.json["result"]["warnings"]
        overloaded = [w for w in warnings if w.startswith("the host was overloaded")]
        self.assertEqual(len(overloaded), 1, warnings)
        self.assertIn("involuntary context switches", overloaded[0])
        scheduler = result.json["resources"]["scheduler"]
        self.assertGreater(scheduler["involuntary_switches"], 0)
        self.assertEqual(scheduler["cores_given"], 1)
        self.assertIn("Scheduler: ", result.stdout)


if __name__ == "__main__":
    unittest.main()
