"""End-to-end: --local-pair --subscribers N, a local group: the publisher and N subscriber
processes from one command, each subscriber with its own id and transport arguments (its own
port over UDP), the publisher's report covering them all. Real processes on loopback."""

import unittest

from netprof_test_case import NetprofTestCase

DEADLINE_S = 60
MODEST = ["-t", "0.5", "--send-hz", "2000", "--warmup-time", "0.2"]


class LocalGroupTest(NetprofTestCase):
    def assert_every_subscriber_got_everything(self, result, subscribers):
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        sent = result.json["publisher"]["messages_sent"]
        self.assertGreater(sent, 0)
        reported = result.json["subscribers"]
        self.assertEqual(sorted(s["id"] for s in reported), list(range(1, subscribers + 1)))
        for summary in reported:
            self.assertEqual(summary["unique"], sent, summary)
            self.assertEqual(summary["lost"], 0, summary)
            self.assertGreater(summary["echoes"], 0, summary)
        self.assertIn(f"Local pair: a publisher and {subscribers} subscriber processes",
                      result.stdout)

    def test_three_udp_subscribers_each_on_its_own_port(self):
        result = self.run_netprof("--local-pair", "--subscribers", "3", *MODEST,
                                  json_name="udp", deadline_s=DEADLINE_S)
        self.assert_every_subscriber_got_everything(result, 3)
        # The publisher learned three subscriber addresses, one per process.
        self.assertEqual(len(set(result.json["endpoint"]["peer_addresses"])), 3)

    def test_a_group_over_a_shared_name(self):
        # mq: every subscriber its own queue under the one --mq name the group picked.
        result = self.run_netprof("--local-pair", "--mq", "--subscribers", "2", *MODEST,
                                  json_name="mq", deadline_s=DEADLINE_S)
        self.assert_every_subscriber_got_everything(result, 2)

    def test_a_group_it_cannot_run_is_refused_before_anything_starts(self):
        self.assert_refused_in_one_line(
            ["--local-pair", "-u", "127.0.0.1:41000", "-u", "127.0.0.1:41001", "--subscribers",
             "2"], 2, "a local group (--subscribers 2) picks a free loopback port for each "
                      "process: give no -u")
        self.assert_refused_in_one_line(
            ["--local-pair", "--threads", "--subscribers", "2"], 2,
            "--local-pair --threads runs one subscriber")
        self.assert_refused_in_one_line(["--local-pair", "--subscribers", "0"], 2,
                                        "give --subscribers 1 or more")


if __name__ == "__main__":
    unittest.main()
