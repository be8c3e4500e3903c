"""End-to-end: a stranger ZeroMQ socket connects to a subscriber's own bound endpoint.

MADARA's layout has every process bind an endpoint of its own; a subscriber's XSUB sends its
hellos and echoes to every publisher connected there, so a stranger that connects learns the
run id, the subscriber's id and its instance tag from them. What it cannot learn is the end
token, which only the real publisher's acknowledgement carries (include/netprof/wire.hpp,
"Address proof"): its END and final_ack must end nothing (issue 18, was: the subscriber ended
early with SUCCESS, 502 of 3,000 received, lost 0).
"""

import time
import unittest

import zmq

from netprof_test_case import NetprofTestCase
from test_hostile_wire import ECHO, END, FINAL_ACK, HEADER, header
from test_zmq import free_tcp_port

DEADLINE_S = 30


class StrangerPublisherTest(NetprofTestCase):
    def setUp(self):
        super().setUp()
        self.context = zmq.Context()
        self.addCleanup(self.context.term)

    def learn_from_upstream(self, stranger, deadline_s=10):
        """The run id, the subscriber's tag and the highest probe sequence, from its echoes."""
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            if not stranger.poll(100):
                continue
            frame = stranger.recv()
            if len(frame) < HEADER.size:
                continue  # a subscription message
            fields = HEADER.unpack_from(frame)
            if fields[2] == ECHO and fields[5] != 0:
                return fields[5], fields[10], fields[6]
        self.fail("the stranger never saw an echo")

    def test_stranger_end_does_not_end_the_subscriber(self):
        pub_endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        sub_endpoint = f"tcp://127.0.0.1:{free_tcp_port()}"
        publisher, pub_json = self.start("-i", "0", "--zmq", pub_endpoint, "--wait", "20",
                                         "--send-hz", "1000", "-t", "3", json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "--zmq", sub_endpoint, "--zmq", pub_endpoint,
                                          "--wait", "20", json_name="sub")
        stranger = self.context.socket(zmq.XPUB)
        self.addCleanup(stranger.close, 0)
        stranger.connect(sub_endpoint)
        run_id, tag, sequence = self.learn_from_upstream(stranger)
        end = header(END, sender=0, run_id=run_id, sequence=sequence + 1)
        ack = header(FINAL_ACK, sender=0, run_id=run_id, sequence=1, record_count=tag)
        for _ in range(5):
            stranger.send(end)
            stranger.send(ack)
            time.sleep(0.01)
        self.assertIsNone(subscriber.poll(), "the subscriber ended on the stranger's END")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        own = sub.json["subscriber"]
        self.assertEqual(own["received"], pub.json["publisher"]["messages_sent"])
        self.assertEqual(own["lost"], 0)
        self.assertGreaterEqual(sub.json["rejected"], 5)


if __name__ == "__main__":
    unittest.main()
