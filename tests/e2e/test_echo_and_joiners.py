"""End-to-end: what a report charges and what its echoes carry (issue 29), through real processes.

- --echo full sends each probe's size back (as sockperf, ddsperf and iceperf echo): the
  publisher measures every echo it takes, so the report's bytes per echo are what came back
  over the transport; --echo record sends the header and stamps (68 B).
- --echo full with a payload the way back cannot carry (shared memory's 64 KiB back rings) is
  refused at start with exit 2 and the reason.
- A subscriber started mid-run is charged only with what was sent after it joined: with
  --max-loss the run passes, and the report gives the message it joined at.
"""

import glob
import os
import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

DEADLINE_S = 40
HEADER = 52
RECORD_ECHO = HEADER + 16


class EchoSizeTest(NetprofTestCase):
    def ping_pong(self, *args):
        done = self.run_netprof("--local-pair", "--mode", "ping-pong", "-t", "0.5",
                                "--warmup-time", "0.1", *args, json_name="pub",
                                deadline_s=DEADLINE_S)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return done

    def test_full_echo_is_as_large_as_the_probe(self):
        done = self.ping_pong("-s", "1000", "--echo", "full")
        publisher = done.json["publisher"]
        self.assertEqual(done.json["settings"]["echo"], "full")
        self.assertGreater(publisher["echoes_received"], 0)
        self.assertEqual(publisher["echo_bytes_per_echo"], HEADER + 1000)
        self.assertIn("Echo: full, 1,052 B per echo", done.stdout)

    def test_record_echo_is_the_header_and_stamps(self):
        done = self.ping_pong("-s", "1000")
        self.assertEqual(done.json["settings"]["echo"], "record")
        self.assertEqual(done.json["publisher"]["echo_bytes_per_echo"], RECORD_ECHO)
        self.assertIn("Echo: record, 68 B per echo", done.stdout)

    def test_full_echo_over_tcp_passes_the_publishers_read_limit(self):
        # The publisher reads only control messages on a stream and closes a connection that
        # sends more: a full echo of 4 kB must be let through.
        done = self.ping_pong("-s", "4000", "--echo", "full", "--tcp", "127.0.0.1:0")
        self.assertEqual(done.json["publisher"]["echo_bytes_per_echo"], HEADER + 4000)

    def test_full_echo_larger_than_the_way_back_is_refused_at_start(self):
        name = f"np-echo-{os.getpid()}"
        self.addCleanup(lambda: [os.unlink(p) for p in glob.glob(f"/dev/shm/{name}*")])
        done = self.run_netprof("-i", "0", "--shm", name, "-s", "100000", "-q", "4000000",
                                "--echo", "full", "--wait", "5", deadline_s=DEADLINE_S)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("--echo full with -s 100000 is too large for shm's way back",
                      done.stderr)
        self.assertEqual(glob.glob(f"/dev/shm/{name}*"), [])


class LateJoinerTest(NetprofTestCase):
    def test_a_late_joiner_is_charged_only_from_where_it_joined(self):
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        first, first_json = self.start("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}",
                                       "-u", pub_addr, json_name="sub1")
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "--subscribers", "1",
                                         "-t", "3", "--send-hz", "2000", "--max-loss", "5",
                                         json_name="pub")
        time.sleep(1.8)
        late, late_json = self.start("-i", "2", "-u", f"127.0.0.1:{free_udp_port()}",
                                     "-u", pub_addr, json_name="sub2")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        self.finish(first, first_json, DEADLINE_S)
        own = self.finish(late, late_json, DEADLINE_S)

        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        sent = pub.json["publisher"]["messages_sent"]
        entry = next(s for s in pub.json["subscribers"] if s["id"] == 2)
        self.assertTrue(entry["joined_late"])
        joined_at = entry["joined_at_sequence"]
        self.assertGreater(joined_at, 0)
        self.assertLess(joined_at, sent)
        self.assertEqual(entry["sent_before_joining"], joined_at)
        # Nothing sent before it joined is lost; what it lost after, it lost.
        self.assertEqual(entry["lost"], sent - joined_at - entry["unique"])
        self.assertLess(entry["lost"], (sent - joined_at) * 0.05)
        self.assertIn(f"(joined late, at message {joined_at:,}", pub.stdout)

        # Its own report charges it from its first measured message on, as well.
        self.assertEqual(own.returncode, 0, own.stdout + own.stderr)
        mine = own.json["subscriber"]
        self.assertTrue(mine["joined_late"])
        self.assertGreaterEqual(mine["joined_at_sequence"], joined_at)
        self.assertEqual(mine["lost"], sent - mine["joined_at_sequence"] - mine["unique"])


if __name__ == "__main__":
    unittest.main()
