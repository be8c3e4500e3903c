"""End-to-end: --dds-notify over Cyclone DDS, real publisher and subscriber processes on
loopback. With `listener`, each sample is handed to netprof on Cyclone's receive thread and the
subscriber's echo, and the publisher's next probe, are written from there (as ddsperf answers);
a ping-pong passes and its report names the mechanism and how many samples and probes went that
way. A listening subscriber in a stream counts the data on Cyclone's thread and is not woken for
it. `waitset` and `poll` pass the same
ping-pong. --dds-notify with another transport, or with a value it does not know, is refused
with one line and exit 2.
"""

import re
import unittest

from dds_family_case import MODEST
from test_dds import PING_PONG, DEADLINE_S, DdsTestCase

SHORT = ["--mode", "ping-pong", "--count", "200", "--warmup-count", "20", "--probe-timeout", "5"]


def listener_figures(test, notes):
    """A listener note's samples handed over on Cyclone's thread, samples in all, and the times
    it woke netprof's own thread."""
    figures = re.search(r"(\d+) of (\d+) samples handed over on Cyclone's receive thread.*?"
                        r"woke netprof's thread (\d+) times", notes)
    test.assertIsNotNone(figures, notes)
    return tuple(int(figures.group(i)) for i in (1, 2, 3))


class NotifyTest(DdsTestCase):
    def ping_pong(self, notify, name, count=PING_PONG):
        result = self.run_netprof("--local-pair", "--dds", "--dds-notify", notify, *count,
                                  json_name=name, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        publisher = result.json["publisher"]
        self.assertEqual(publisher["echoes_received"], publisher["messages_sent"])
        [subscriber] = result.json["subscribers"]
        self.assertEqual(subscriber["lost"], 0)
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])
        return result

    def test_listener_ping_pong_answers_on_cyclones_thread_and_says_so(self):
        result = self.ping_pong("listener", "listener")
        notes = " ".join(result.json["endpoint"]["notes"])
        self.assertIn("notification: --dds-notify listener", notes)
        self.assertIn("notification: --dds-notify listener", result.stdout)
        # The publisher waits in a blocking receive for each echo (--wait-strategy block), so
        # Cyclone's thread hands most echoes over.
        handed, delivered, wakes = listener_figures(self, notes)
        publisher = result.json["publisher"]
        self.assertGreater(handed, 0, notes)
        self.assertGreaterEqual(delivered, publisher["echoes_received"])
        # And sends each next probe from there, as ddsperf's ping: netprof's own thread sends
        # the first, and the next after an echo that came between two of its waits, and is woken
        # a handful of times, not once a round trip.
        self.assertGreaterEqual(publisher["probes_relayed"], publisher["probes_sent"] * 9 // 10)
        self.assertIn("Probes relayed:", result.stdout)
        self.assertLess(wakes, 20, "a ping-pong publisher sleeps through its echoes: " + notes)

    def test_a_listening_subscriber_sleeps_through_a_stream(self):
        # Its data is counted on Cyclone's thread; its own thread is woken only for what it must
        # act on (the acknowledgement, the end), not once a sample (58k times a second before).
        options = self.two_terminal(self.option("notify"), "listener")
        publisher, pub_json = self.start("-i", "0", *options, "--wait", "20", *MODEST,
                                         json_name="pub")
        subscriber, sub_json = self.start("-i", "1", *options, "--wait", "20", json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        [counted] = pub.json["subscribers"]
        self.assertEqual(counted["lost"], 0)
        notes = " ".join(sub.json["endpoint"]["notes"])
        handed, delivered, wakes = listener_figures(self, notes)
        self.assertGreaterEqual(delivered, counted["received"])
        self.assertGreater(handed, delivered // 2, notes)
        self.assertLess(wakes, 20, notes)
        # Nor is the publisher woken for a stream's echoes while it waits for its next send.
        notes = " ".join(pub.json["endpoint"]["notes"])
        handed, delivered, wakes = listener_figures(self, notes)
        self.assertGreater(handed, 100, notes)
        self.assertLess(wakes, 20, notes)

    def test_waitset_and_poll_ping_pong_pass_and_name_themselves(self):
        for notify in ("waitset", "poll"):
            with self.subTest(notify=notify):
                result = self.ping_pong(notify, notify, SHORT)
                notes = " ".join(result.json["endpoint"]["notes"])
                self.assertIn(f"notification: --dds-notify {notify}", notes)
                self.assertNotIn("handed over on Cyclone's receive thread", notes)

    def test_waitset_is_the_default(self):
        result = self.run_netprof("--local-pair", "--dds", *SHORT, json_name="default",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("notification: --dds-notify waitset",
                      " ".join(result.json["endpoint"]["notes"]))


class NotifyRefusalTest(DdsTestCase):
    def assert_refused(self, args, *words):
        result = self.run_netprof(*args, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, result.stderr)
        for word in words:
            self.assertIn(word, lines[0])

    def test_on_another_transport(self):
        self.assert_refused(["-i", "1", "-u", "127.0.0.1:40999", "--dds-notify", "listener"],
                            "--dds-notify does not apply to the udp transport",
                            "it is an option of dds")
        self.assert_refused(["--local-pair", "--uds", "/tmp/unused.sock", "--dds-notify", "poll"],
                            "--dds-notify does not apply to the uds transport")

    def test_an_unknown_mechanism(self):
        self.assert_refused(["-i", "1", "--dds", "--dds-notify", "callback"], "--dds-notify",
                            "callback")


if __name__ == "__main__":
    unittest.main()
