"""End-to-end: Unix-domain sockets (issue 20). Local pairs over both socket types, two
subscribers fanned out to with a latency figure each, the socket file (0600 under umask 000,
removed at the end; a stale one replaced, a live, foreign or non-socket one refused), strangers,
a publisher that dies mid-message, and the command line's refusals."""

import os
import socket
import stat
import unittest

from stream_test_case import DEADLINE_S, MODEST, StreamTestCase

UMASK_000 = ("sh", "-c", 'umask 000; exec "$0" "$@"')


class UdsTest(StreamTestCase):
    def path(self, name):
        return os.path.join(self._tmp.name, name + ".sock")

    def test_local_pairs_of_both_types_lose_nothing_and_leave_no_file(self):
        for kind in ["seqpacket", "stream"]:
            result = self.run_netprof("--local-pair", "--uds-type", kind, *MODEST,
                                      json_name=kind, deadline_s=DEADLINE_S)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            report = result.json
            self.assertEqual(report["endpoint"]["transport"], "uds")
            [subscriber] = report["subscribers"]
            self.assertEqual(subscriber["received"], report["publisher"]["messages_sent"])
            self.assertIn(f"SOCK_{kind.upper()}", " ".join(report["endpoint"]["notes"]))
            [path] = report["endpoint"]["local_addresses"]
            # Only this run's own file: other runs on the machine (a sweep, a benchmark) make
            # and remove theirs under the same prefix at any time.
            self.assertFalse(os.path.exists(path), "the socket file was left behind")

    def test_two_subscribers_and_a_socket_file_0600_under_umask_000(self):
        path = self.path("fan-out")
        publisher, pub_json = self.start("-i", "0", "--uds", path, "--subscribers", 2,
                                         "--wait", "10", *MODEST, json_name="pub",
                                         prefix=UMASK_000)
        self.wait_for_file(path)
        self.assertEqual(stat.S_IMODE(os.lstat(path).st_mode), 0o600)
        started = [self.start("-i", i, "--uds", path, json_name=f"sub{i}") for i in (1, 2)]
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        subs = [self.finish(process, json_path, DEADLINE_S) for process, json_path in started]
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assert_each_subscriber_got_everything_with_its_own_latency(pub, subs)
        self.assertFalse(os.path.exists(path), "the socket file was left behind")

    def test_ping_pong_over_an_abstract_name(self):
        name = f"@netprof-e2e-{os.getpid()}"
        result = self.run_netprof("--local-pair", "--uds", name, "--uds-type", "stream", "--mode",
                                  "ping-pong", "--count", "300", "--warmup-count", "30",
                                  json_name="pingpong", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.json["publisher"]["echoes_received"], 300)
        self.assertIn("no file and so no permissions", " ".join(result.json["endpoint"]["notes"]))

    def test_strangers_that_break_the_framing_are_closed_and_the_run_passes(self):
        path = self.path("strangers")
        publisher, pub_json = self.start("-i", "0", "--uds", path, "--uds-type", "stream",
                                         "--wait", "10", *MODEST, json_name="pub")
        self.strangers(socket.AF_UNIX, path)
        subscriber, sub_json = self.start("-i", "1", "--uds", path, "--uds-type", "stream",
                                          json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertIn("(1 ended mid-message, 1 not framed, 1 too large)",
                      " ".join(pub.json["endpoint"]["notes"]))

    def test_a_publisher_that_dies_mid_message_fails_its_subscriber_with_exit_3(self):
        path = self.path("cut")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(path)
            listener.listen()
            self.fake_publisher_cutting_a_message(listener)
            result = self.run_netprof("-i", "1", "--uds", path, "--uds-type", "stream", "--wait",
                                      "5", deadline_s=DEADLINE_S)
        self.assert_cut_message_fails_the_subscriber(result)

    def test_what_is_found_at_the_path(self):
        stale = self.path("stale")
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as crashed:
            crashed.bind(stale)  # closed without unlinking, as a killed process leaves it
        result = self.run_netprof("--local-pair", "--uds", stale, *MODEST, json_name="stale",
                                  deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"removed a stale socket file at {stale}", result.json["endpoint"]["notes"][0])

        live = self.path("live")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listening:
            listening.bind(live)
            listening.listen()
            self.assert_transport_error(live, "address in use (another process is listening on it)")
        regular = self.path("regular")
        with open(regular, "w") as f:
            f.write("precious")
        self.assert_transport_error(regular, "the path exists and is not a socket")
        with open(regular) as f:
            self.assertEqual(f.read(), "precious")

    def test_another_users_socket_file_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to give the file to another user (CI runs as root)")
        foreign = self.path("foreign")
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as other:
            other.bind(foreign)
        os.chown(foreign, 65534, 65534)
        self.assert_transport_error(foreign, "the socket file there belongs to uid 65534, not to "
                                             "this user")
        self.assertTrue(os.path.exists(foreign))

    def test_a_subscriber_of_the_other_type_is_told_why(self):
        path = self.path("types")
        publisher, _ = self.start("-i", "0", "--uds", path, "--wait", "10")
        self.wait_for_file(path)
        result = self.run_netprof("-i", "1", "--uds", path, "--uds-type", "stream", "--wait", "1",
                                  deadline_s=DEADLINE_S)
        self.interrupt(publisher)  # it has nothing left to wait for
        self.finish(publisher, None, DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn("the publisher uses the other --uds-type: give both the same", result.stdout)

    def test_bad_command_lines_are_refused_in_one_line(self):
        too_long = "/tmp/" + "p" * 103
        self.assert_usage_error("--local-pair", "--uds", too_long,
                                mentions="the path is 108 bytes, at most 107 fit in a Unix socket "
                                         "address (sun_path)")
        self.assert_usage_error("-i", "0", "--uds", "@" + "n" * 108, mentions="the name is 108 "
                                                                            "bytes")
        self.assert_usage_error("-i", "1", "--uds", "@netprof\\0x",
                                mentions="netprof does not translate escapes, and a NUL byte "
                                         "cannot be part of a socket name")
        self.assert_usage_error("-i", "0", "--uds", "/tmp/x", "--uds-type", "dgram",
                                mentions="invalid value 'dgram' for --uds-type: expected "
                                         "seqpacket or stream")

    def assert_transport_error(self, path, mentions):
        result = self.run_netprof("-i", "0", "--uds", path, "--wait", "1", deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn(f"cannot bind uds {path}: {mentions}", result.stderr)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)


if __name__ == "__main__":
    unittest.main()
