"""End-to-end: a publisher and three subscribers over UDP multicast and broadcast.

Each test runs inside a private network namespace that has only lo (and, for multicast, the
route 224.0.0.0/4 dev lo that lo needs), so nothing reaches a real network and the default
group and port are free. Creating a namespace needs root: without it, or when `ip netns`
fails, the test is skipped with the reason, never passed.
"""

import itertools
import os
import subprocess

from netprof_test_case import NetprofTestCase

# A modest rate that loopback carries without loss on a loaded 2-core machine.
MODEST = ["-t", "1", "--warmup-time", "0.2"]
MODEST_HZ = 1000
GROUP = "239.255.0.1:4150"  # MADARA's default group
BROADCAST = "127.255.255.255:4150"
SUBSCRIBERS = 3

_names = itertools.count()


def _ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)


class NamespaceTestCase(NetprofTestCase):
    """Gives each test its own namespace, deleted after its processes are killed."""

    multicast_route = True

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to create a network namespace (ip netns add)")
        self.namespace = f"netprof-e2e-{os.getpid()}-{next(_names)}"
        created = _ip("netns", "add", self.namespace)
        if created.returncode != 0:
            self.skipTest(f"ip netns add failed: {created.stderr.strip()}")
        # Registered before the harness's cleanups, so it runs after them (cleanups are LIFO):
        # the processes are killed first, then their namespace goes.
        self.addCleanup(_ip, "netns", "delete", self.namespace)
        super().setUp()
        steps = [["-n", self.namespace, "link", "set", "lo", "up"]]
        if self.multicast_route:
            steps.append(["-n", self.namespace, "route", "add", "224.0.0.0/4", "dev", "lo"])
        for step in steps:
            done = _ip(*step)
            if done.returncode != 0:
                self.skipTest(f"ip {' '.join(step)} failed: {done.stderr.strip()}")

    def start_in_namespace(self, *args, json_name=None):
        """Like start(), inside the namespace. `ip netns exec` execs netprof in place, so the
        tracked PID is netprof's own and the harness's cleanup kills it."""
        return self.start(*args, json_name=json_name,
                          prefix=["ip", "netns", "exec", self.namespace])


class ThreeSubscribersTest(NamespaceTestCase):
    def run_three(self, transport, *extra, send_hz=MODEST_HZ):
        subscribers = [self.start_in_namespace("-i", i, *transport, *extra, "--wait", "20",
                                               json_name=f"sub{i}")
                       for i in range(1, SUBSCRIBERS + 1)]
        publisher = self.start_in_namespace("-i", "0", *transport, *extra, *MODEST,
                                            "--send-hz", send_hz,
                                            "--subscribers", SUBSCRIBERS, "--wait", "20",
                                            json_name="pub")
        pub = self.finish(*publisher, deadline_s=40)
        subs = [self.finish(*subscriber, deadline_s=20) for subscriber in subscribers]
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stderr)

        report = pub.json
        sent = report["publisher"]["messages_sent"]
        probes = report["publisher"]["probes_sent"]
        self.assertGreater(sent, 0)
        self.assertGreater(probes, 0)
        self.assertEqual(sorted(s["id"] for s in report["subscribers"]), [1, 2, 3])
        for sub in report["subscribers"]:
            with self.subTest(subscriber=sub["id"]):
                self.assertTrue(sub["counters_received"])
                self.assertFalse(sub["joined_late"])
                self.assertEqual(sub["received"], sent)
                self.assertEqual(sub["lost"], 0)
                self.assertEqual(sub["probes_echoed"], probes, "a probe went unechoed")
                self.assertEqual(sub["echoes"], probes, "an echo did not come back")
        self.assertEqual(report["publisher"]["echoes_received"], SUBSCRIBERS * probes)
        for sub in subs:
            own = sub.json["subscriber"]
            self.assertEqual(sub.json["run_id"], report["run_id"])
            self.assertEqual(own["received"], sent)
        return report, [sub.json for sub in subs]

    def test_multicast_with_three_subscribers(self):
        report, _ = self.run_three(["-m", GROUP])
        self.assertEqual(report["settings"]["transport"], "multicast")
        self.assertEqual(report["endpoint"]["peer_addresses"], [GROUP])

    def test_broadcast_with_three_subscribers(self):
        report, _ = self.run_three(["-b", BROADCAST])
        self.assertEqual(report["settings"]["transport"], "broadcast")
        self.assertEqual(report["endpoint"]["peer_addresses"], [BROADCAST])

    def test_no_transport_option_means_multicast_on_madaras_group(self):
        report, subs = self.run_three([])
        self.assertEqual(report["settings"]["transport"], "multicast")
        self.assertEqual(report["endpoint"]["local_addresses"][0], GROUP)
        self.assertEqual(subs[0]["endpoint"]["peer_addresses"], [GROUP])

    def test_multicast_messages_larger_than_a_datagram(self):
        size = 200_000
        # 40 MB/s to each of three subscribers: 100 ms of slack in a 4 MB receive buffer, so a
        # scheduling stall on a loaded 2-core machine is not loss.
        report, _ = self.run_three(["-m", GROUP], "-s", size, "-q", "4000000", send_hz=200)
        fragments = -(-(size + 52) // 62000)
        for sub in report["subscribers"]:
            self.assertEqual(sub["datagrams"], sub["received"] * fragments)
            self.assertGreater(sub["wire_bytes"], sub["payload_bytes"])


class SeveralPublishersTest(NamespaceTestCase):
    """--publishers P on a shared medium: publisher k sends to the group (or broadcast address)
    on the port given + k, so each stream is apart from the others."""

    def test_a_local_group_over_multicast_loses_nothing(self):
        process, path = self.start_in_namespace(
            "--local-pair", "-m", GROUP, "--publishers", "2", "--subscribers", "2", *MODEST,
            "--send-hz", MODEST_HZ, json_name="group")
        self.assert_two_publishers_whole(self.finish(process, path, deadline_s=40))

    def test_by_hand_over_broadcast_each_publisher_takes_the_next_port(self):
        publishers = [self.start_in_namespace("-i", str(i), "--publishers", "2", "-b", BROADCAST,
                                              *MODEST, "--send-hz", MODEST_HZ, "--wait", "20",
                                              json_name=f"pub{i}") for i in (0, 1)]
        subscriber = self.start_in_namespace("-i", "2", "--publishers", "2", "-b", BROADCAST,
                                             "--wait", "20", json_name="sub")
        for process, path in publishers:
            published = self.finish(process, path, deadline_s=40)
            self.assertEqual(published.returncode, 0, published.stdout + published.stderr)
        received = self.finish(*subscriber, deadline_s=20)
        self.assertEqual(received.returncode, 0, received.stdout + received.stderr)
        streams = received.json["subscriber"]["per_publisher"]
        self.assertEqual([(s["publisher"], s["lost"], s["end_received"]) for s in streams],
                         [(0, 0, True), (1, 0, True)])
        self.assertIn("127.255.255.255:4151", streams[1]["address"])


class MissingRouteTest(NamespaceTestCase):
    multicast_route = False

    def test_join_without_a_multicast_route_fails_with_a_hint(self):
        process, _ = self.start_in_namespace("-i", "1", "-m", GROUP, "--wait", "1")
        result = self.finish(process, deadline_s=20)
        self.assertEqual(result.returncode, 3, result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("cannot join multicast group 239.255.0.1", lines[0])
        self.assertIn("No such device", lines[0])
        self.assertIn("ip route add 224.0.0.0/4 dev lo", lines[0])

    def test_broadcast_needs_no_route(self):
        subscriber = self.start_in_namespace("-i", "1", "-b", BROADCAST, "--wait", "20",
                                             json_name="sub")
        publisher = self.start_in_namespace("-i", "0", "-b", BROADCAST, *MODEST, "--send-hz",
                                            MODEST_HZ, "--wait", "20",
                                            json_name="pub")
        pub = self.finish(*publisher, deadline_s=40)
        self.finish(*subscriber, deadline_s=20)
        self.assertEqual(pub.returncode, 0, pub.stderr)
        self.assertEqual(pub.json["subscribers"][0]["lost"], 0)


if __name__ == "__main__":
    import unittest
    unittest.main()
