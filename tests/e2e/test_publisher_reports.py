"""End-to-end: several publishers run by hand (--publishers P), publisher 0 leading. Each
other publisher sends its report to publisher 0 when its run is over, at --lead HOST:PORT or by
default at an abstract Unix socket on this host named after the run's first stream; publisher 0
prints every publisher's line and verdict, and puts their reports in its JSON's publishers[].
Real processes on loopback TCP and Unix-domain sockets in the test's own folder."""

import os
import socket
import time
import unittest

from netprof_test_case import NetprofTestCase, free_tcp_port_run

DEADLINE_S = 60
MODEST = ["-t", "1", "--send-hz", "2000", "--warmup-time", "0.2"]


class PublisherReportsTest(NetprofTestCase):
    def key(self):
        path = self.json_path("key")
        with open(path, "wb") as out:
            out.write(os.urandom(32))
        os.chmod(path, 0o600)
        return path

    def run_two_publishers(self, transport, *extra):
        """Publishers 0 and 1 and subscriber 2 by hand, each given the same command line; returns
        the finished publishers' results, publisher 0's first."""
        common = ["--publishers", "2", *transport, *extra]
        publishers = [self.start("-i", str(i), *common, *MODEST, json_name=f"pub{i}")
                      for i in (0, 1)]
        subscriber = self.run_netprof("-i", "2", *common, json_name="sub", deadline_s=DEADLINE_S)
        results = [self.finish(process, path, DEADLINE_S) for process, path in publishers]
        self.assertEqual(subscriber.returncode, 0, subscriber.stdout + subscriber.stderr)
        return results

    def assert_publisher_0_reports_both(self, first, second, where):
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        self.assertEqual(second.returncode, 0, second.stdout + second.stderr)
        entries = first.json["publishers"]
        self.assertEqual([e["id"] for e in entries], [0, 1])
        # Publisher 1's entry is its own report, as it wrote it.
        self.assertEqual(entries[1]["publisher"]["messages_sent"],
                         second.json["publisher"]["messages_sent"])
        self.assertEqual(entries[1]["subscribers"], second.json["subscribers"])
        self.assertEqual(entries[0]["publisher"], first.json["publisher"])
        for entry in entries:
            self.assertEqual(entry["result"]["status"], "SUCCESS")
            [subscriber] = entry["subscribers"]
            self.assertEqual((subscriber["id"], subscriber["lost"]), (2, 0))
        section = first.stdout[first.stdout.index("Publishers (each one's own report"):]
        self.assertIn(where, section.splitlines()[0])
        sent = second.json["publisher"]["messages_sent"]
        self.assertIn(f"\n  1: SUCCESS; {sent:,} sent, RTT p50 ", section)
        self.assertIn("\n  0: SUCCESS; ", section)
        self.assertNotIn("did not reach publisher 0", second.stdout)

    def test_on_one_host_publisher_0_prints_every_publishers_report(self):
        place = os.path.join(os.path.dirname(self.json_path("x")), "reports.sock")
        first, second = self.run_two_publishers(["--uds", place])
        self.assert_publisher_0_reports_both(first, second, "@netprof-lead-")

    def test_across_hosts_they_meet_at_lead_over_tcp_with_a_key(self):
        base = free_tcp_port_run(3)
        lead = f"127.0.0.1:{base + 2}"
        first, second = self.run_two_publishers(["--tcp", f"127.0.0.1:{base}"], "--lead", lead,
                                                "--key-file", self.key())
        self.assert_publisher_0_reports_both(first, second, lead)

    def test_a_stranger_at_the_lead_is_refused_and_the_run_passes(self):
        base = free_tcp_port_run(3)
        lead_port = base + 2
        common = ["--publishers", "2", "--tcp", f"127.0.0.1:{base}", "--lead",
                  f"127.0.0.1:{lead_port}"]
        started = [self.start("-i", str(i), *common, *MODEST, json_name=f"pub{i}")
                   for i in (0, 1)]
        subscriber = self.start("-i", "2", *common, json_name="sub")
        # Publisher 0 listens from its start, and answers once its own run is over: first a
        # nonce, then the refusal and its reason.
        deadline = time.monotonic() + 20
        answer = b""
        while time.monotonic() < deadline and not answer:
            try:
                with socket.create_connection(("127.0.0.1", lead_port), timeout=20) as stranger:
                    stranger.sendall(b"GET / HTTP/1.0\r\n\r\n")
                    while chunk := stranger.recv(4096):
                        answer += chunk
            except ConnectionRefusedError:
                time.sleep(0.05)
        self.assertEqual(answer[16:17], b"R", answer)
        self.assertIn(b"not a netprof report", answer)
        received = self.finish(*subscriber, DEADLINE_S)
        self.assertEqual(received.returncode, 0, received.stdout + received.stderr)
        first, second = [self.finish(process, path, DEADLINE_S) for process, path in started]
        self.assertEqual(second.returncode, 0, second.stdout + second.stderr)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        self.assertEqual([e["result"]["status"] for e in first.json["publishers"]],
                         ["SUCCESS", "SUCCESS"])
        self.assertTrue(any("1 connection(s) to 127.0.0.1:" in w and "not a netprof report" in w
                            for w in first.json["result"]["warnings"]),
                        first.json["result"]["warnings"])

    def test_a_publisher_whose_lead_never_comes_says_so_and_passes(self):
        place = os.path.join(os.path.dirname(self.json_path("x")), "alone.sock")
        common = ["--publishers", "2", "--uds", place + ".0", "--wait", "2"]
        # Publisher 1 alone (its stream is place.0.1); its subscriber expects both publishers'
        # streams, so it is run with --publishers 2 as well and is told to give up on 0 soon.
        second, second_path = self.start("-i", "1", *common, *MODEST, json_name="pub1")
        subscriber = self.run_netprof("-i", "2", *common, json_name="sub", deadline_s=DEADLINE_S)
        self.assertNotEqual(subscriber.returncode, 0)
        result = self.finish(second, second_path, DEADLINE_S)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [warning] = [w for w in result.json["result"]["warnings"]
                     if "did not reach publisher 0" in w]
        self.assertIn("publisher 0 was not there to take it", warning)

    def test_interrupted_while_waiting_for_the_others_its_report_is_partial(self):
        process, path = self.start("-i", "0", "--publishers", "2", "--tcp",
                                   f"127.0.0.1:{free_tcp_port_run(2)}", "--subscribers", "0",
                                   "-t", "0.3", "--warmup-time", "0.1", "--wait", "60",
                                   json_name="pub0")
        time.sleep(1.5)  # its own run is over; it waits for publisher 1 (or, loaded, still runs)
        started = time.monotonic()
        self.interrupt(process)
        result = self.finish(process, path, DEADLINE_S)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(result.returncode, 130, result.stdout + result.stderr)
        self.assertEqual(result.json["result"]["status"], "INTERRUPTED")
        self.assertIn("publisher 1: no report reached publisher 0 before it was interrupted",
                      result.json["result"]["problems"])

    def test_what_cannot_run_is_refused(self):
        self.assert_refused_in_one_line(["-i", "0", "--tcp", "127.0.0.1:5000", "--lead",
                                         "127.0.0.1:5100"], 2, "--publishers 2 or more")
        self.assert_refused_in_one_line(["--local-pair", "--tcp", "--publishers", "2", "--lead",
                                         "127.0.0.1:5100"], 2, "a local group gathers")
        for bad in ("5100", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:70000", ":5100"):
            with self.subTest(lead=bad):
                self.assert_refused_in_one_line(["-i", "0", "--publishers", "2", "--tcp",
                                                 "127.0.0.1:5000", "--lead", bad], 2,
                                                f"bad --lead value '{bad}'")


if __name__ == "__main__":
    unittest.main()
