"""End-to-end: garbage on the wire while a real publisher and subscriber run over UDP loopback.

A third socket (this test) sends every kind of broken or foreign datagram to both processes'
ports during the measured phase. Both must finish with SUCCESS and figures untouched by it
(zero loss, sent == received, one latency sample per real probe), and each process must count
what it refused: `rejected` for messages, the endpoint's reassembly note for fragments.

To forge messages of *this* run (an echo for a probe never sent, say), the test must know the
run id, which the publisher draws at random. It learns it the way any host on the path could:
the publisher is given the test's "spy" socket as one more -u peer, so it sends the spy its
data. A peer given on the command line is not a subscriber, so this changes no figure.

Headers are built with struct from the wire v1 layout (include/netprof/wire.hpp) and the UDP
fragment header (transports/udp/fragment_header.hpp). docs/hostile-input.md lists each kind
of garbage and what netprof does with it.
"""

import random
import re
import socket
import struct
import threading
import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port

# wire v1: magic, version, kind, flags, sender_id, run_id, sequence, intended_ns, sent_ns,
# payload_length, record_count (52 bytes, little-endian).
HEADER = struct.Struct("<IBBHIQQqqII")
MAGIC = 0x4652504E
VERSION = 1
HELLO, HELLO_ACK, DATA, ECHO, END, FINAL_COUNTERS, FINAL_ACK, CHALLENGE, PROGRESS = range(1, 10)
PROBE, WARMUP, DEPARTING = 1, 2, 4
# SubscriberCounters: received, unique, duplicates, out_of_order, gaps, datagrams,
# payload_bytes, wire_bytes, first_to_last_ns, probes_echoed, rejected, warmup_received,
# records_decoded.
COUNTERS = struct.Struct("<13Q")
FINAL_COUNTERS_SIZE = COUNTERS.size
# UDP fragment header: magic "NPFG", version 1, 3 reserved bytes, message_id, total, index,
# count, offset (28 bytes, little-endian).
FRAGMENT = struct.Struct("<4sB3sIIIII")
MIN_FRAGMENT_PAYLOAD = 512

assert HEADER.size == 52 and FRAGMENT.size == 28

# Paced, so the run is the same on a quiet and a loaded machine; long enough that every
# garbage datagram lands well inside the measured phase.
STREAM = ["--send-hz", "1000", "-t", "2", "--warmup-time", "0.2"]
PING_PONG = ["--mode", "ping-pong", "--send-hz", "500", "-t", "2", "--warmup-time", "0.2"]
DEADLINE_S = 30


def header(kind=DATA, flags=0, sender=0, run_id=0, sequence=0, intended=0, sent=0,
           payload=b"", payload_length=None, record_count=0, magic=MAGIC, version=VERSION):
    length = len(payload) if payload_length is None else payload_length
    return HEADER.pack(magic, version, kind, flags, sender, run_id, sequence, intended, sent,
                       length, record_count) + payload


def fragment(payload, total, index, count, offset, message_id=77, version=1, reserved=b"\0\0\0"):
    return FRAGMENT.pack(b"NPFG", version, reserved, message_id, total, index, count,
                         offset) + payload


def random_bytes(rng, length):
    data = bytearray(rng.getrandbits(8) for _ in range(length))
    if data:
        data[0] = 0x20  # never "N": no accidental NPRF or NPFG magic
    return bytes(data)


def malformed_messages(rng, run_id):
    """Datagrams every receiver must refuse before reading a field: (name, bytes)."""
    good = header(kind=DATA, run_id=run_id)
    out = [("random bytes", random_bytes(rng, rng.randint(1, 300))) for _ in range(10)]
    out += [(f"truncated to {n}", good[:n]) for n in (0, 1, 4, 5, 8, 20, 44, 51)]
    out += [("wrong magic", header(magic=0x4652504F, run_id=run_id)),
            ("magic in big-endian order", header(magic=0x4E505246, run_id=run_id))]
    out += [(f"version {v}", header(version=v, run_id=run_id)) for v in (0, 2, 255)]
    out += [(f"kind {k}", header(kind=k, run_id=run_id)) for k in (0, 10, 255)]
    out += [(f"flags {f:#x}", header(flags=f, run_id=run_id)) for f in (0x8, 0x8000)]
    out += [("payload_length 0xffffffff", header(run_id=run_id, payload_length=0xFFFFFFFF)),
            ("payload_length beyond the datagram", header(run_id=run_id, payload=b"x" * 10,
                                                          payload_length=1000)),
            ("payload_length short of the datagram", header(run_id=run_id, payload=b"x" * 10,
                                                            payload_length=0)),
            ("record_count absurd, length wrong", header(run_id=run_id, record_count=0xFFFFFFFF,
                                                         payload_length=5))]
    return out


def malformed_fragments():
    """NPFG datagrams the reassembler must drop as malformed, and one as too large."""
    body = b"\x20" * 1000
    malformed = [
        ("fragment header cut short", b"NPFG\x01\0\0\0" + b"\0" * 4),
        ("fragment version 2", fragment(body, 2000, 0, 2, 0, version=2)),
        ("fragment reserved bytes set", fragment(body, 2000, 0, 2, 0, reserved=b"\0\1\0")),
        ("fragment index == count", fragment(body, 2000, 2, 2, 1000)),
        ("fragment index 0xffffffff", fragment(body, 2000, 0xFFFFFFFF, 2, 1000)),
        ("fragment count 0", fragment(body, 2000, 0, 0, 0)),
        ("fragment offset not index x size", fragment(body, 2000, 0, 2, 8)),
        ("fragment beyond its total", fragment(body, 500, 0, 2, 0)),
        ("fragment smaller than the minimum", fragment(b"\x20" * 10, 20, 0, 2, 0)),
        ("fragment with no payload", fragment(b"", 0, 0, 1, 0)),
    ]
    # Passes every check on its own, but announces a ~4 GB message: dropped as too large
    # before any memory is set aside for it.
    count = 4_000_000
    too_large = [("fragment count absurd (4 GB message)",
                  fragment(body, (count - 1) * 1000 + 1, 0, count, 0))]
    return malformed, too_large


class Spy:
    """The test's own peer of the publisher: learns the run id and catches the END."""

    def __init__(self, test):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        test.addCleanup(self.sock.close)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.run_id = None
        # From the subscriber's acknowledgement, which a peer on the path reads: the end token
        # (in intended_ns) and the subscriber's instance tag (in record_count).
        self.end_token = None
        self.subscriber_tag = None
        self.measuring = threading.Event()
        self.ends = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        test.addCleanup(self.stop)

    def _read(self):
        while not self._stop.is_set():
            try:
                datagram = self.sock.recv(70000)
            except (socket.timeout, OSError):
                continue
            if len(datagram) < HEADER.size:
                continue
            fields = HEADER.unpack_from(datagram)
            kind, flags, run_id = fields[2], fields[3], fields[5]
            if fields[0] != MAGIC:
                continue
            if kind == HELLO_ACK:
                self.end_token, self.subscriber_tag = fields[7], fields[10]
            elif kind == DATA and not flags & WARMUP:
                self.run_id = run_id
                self.measuring.set()
            elif kind == END:
                self.ends.append(datagram)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)


def reassembly_counts(report):
    """{'malformed': n, 'too large': n, ...} from the endpoint's reassembly note."""
    counts = {}
    for note in report["endpoint"]["notes"]:
        match = re.search(r"fragments dropped: ([^;]*)", note)
        if match:
            for part in match.group(1).split(", "):
                number, what = part.split(" ", 1)
                counts[what] = int(number)
    return counts


class HostileWireCase(NetprofTestCase):
    def setUp(self):
        super().setUp()
        self.rng = random.Random(0x6E657470726F66)  # fixed: a failure reproduces
        self.garbage = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(self.garbage.close)
        self.garbage.bind(("127.0.0.1", 0))

    def start_pair(self, mode_args, subscriber_connected=False):
        """Starts subscriber 1 and the publisher; returns the run id once data is measured.

        A subscriber with one peer connects its socket to it, and the kernel then drops every
        datagram from anyone else (transports/udp/udp_sockets.hpp). Unless asked for that,
        the subscriber gets the spy as a second peer, so it stays unconnected and hears the
        garbage, as it would from a forged source address or on a shared medium.
        """
        self.pub_port, self.sub_port = free_udp_port(), free_udp_port()
        pub_addr, sub_addr = f"127.0.0.1:{self.pub_port}", f"127.0.0.1:{self.sub_port}"
        self.spy = Spy(self)
        extra_peer = [] if subscriber_connected else ["-u", self.spy.address]
        self.subscriber, self.sub_json = self.start(
            "-i", "1", "-u", sub_addr, "-u", pub_addr, *extra_peer, "--wait", "20",
            json_name="sub")
        self.publisher, self.pub_json = self.start(
            "-i", "0", "-u", pub_addr, "-u", self.spy.address, "--wait", "20", *mode_args,
            json_name="pub")
        if not self.spy.measuring.wait(timeout=20):
            self.fail("the measured phase never began")
        return self.spy.run_id

    def send(self, port, datagrams):
        for _, datagram in datagrams:
            self.garbage.sendto(datagram, ("127.0.0.1", port))

    def assert_still_running(self):
        # The garbage must have reached live processes for the counts below to mean anything.
        self.assertIsNone(self.publisher.poll(), "the publisher finished before the garbage was sent")
        self.assertIsNone(self.subscriber.poll(), "the subscriber finished before the garbage was sent")

    def finish_pair(self):
        pub = self.finish(self.publisher, self.pub_json, deadline_s=DEADLINE_S)
        sub = self.finish(self.subscriber, self.sub_json, deadline_s=DEADLINE_S)
        for name, result in (("publisher", pub), ("subscriber", sub)):
            self.assertNotIn("Traceback", result.stderr)
            self.assertIsNotNone(result.json, f"{name} wrote no JSON: {result.stderr}")
        return pub, sub

    def assert_figures_untouched(self, pub, sub):
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertTrue(pub.stdout.startswith("Test: SUCCESS"), pub.stdout)
        self.assertTrue(sub.stdout.startswith("Test: SUCCESS"), sub.stdout)
        publisher = pub.json["publisher"]
        [seen_by_publisher] = pub.json["subscribers"]  # no forged subscriber in the report
        own = sub.json["subscriber"]
        self.assertEqual(seen_by_publisher["id"], 1)
        sent = publisher["messages_sent"]
        self.assertGreater(sent, 0)
        self.assertEqual(own["received"], sent)
        self.assertEqual(own["unique"], sent)
        self.assertEqual(own["lost"], 0)
        self.assertEqual(own["duplicates"], 0)
        self.assertEqual(seen_by_publisher["received"], sent)
        self.assertEqual(seen_by_publisher["lost"], 0)
        # One latency sample per real probe: none from a forged echo.
        self.assertEqual(publisher["probes_sent"], own["probes_echoed"])
        self.assertEqual(publisher["echoes_received"], publisher["probes_sent"])
        self.assertEqual(publisher["latency"]["rtt_ns"]["count"], publisher["probes_sent"])
        self.assertEqual(seen_by_publisher["echoes"], publisher["probes_sent"])


class GarbageIsRejectedTest(HostileWireCase):
    def run_with_garbage(self, mode_args):
        run_id = self.start_pair(mode_args)
        foreign_run = run_id ^ 0x5A5A5A5A5A5A5A5A
        counters = b"\0" * FINAL_COUNTERS_SIZE
        malformed, too_large = malformed_fragments()

        # --- to the publisher ---
        to_publisher = malformed_messages(self.rng, run_id) + [
            # another run's messages
            ("hello of another run", header(HELLO, sender=7, run_id=foreign_run)),
            ("echo of another run", header(ECHO, flags=PROBE, sender=1, run_id=foreign_run)),
            ("final counters of another run", header(FINAL_COUNTERS, sender=1, run_id=foreign_run,
                                                     payload=counters)),
            ("data of another publisher", header(DATA, sender=0, run_id=foreign_run)),
            # echoes for probes never sent (this run, the real subscriber's id)
            ("echo for a probe never sent", header(ECHO, flags=PROBE, sender=1, run_id=run_id,
                                                   sequence=10**12, intended=1, sent=2)),
            ("echo for a warm-up probe never sent", header(ECHO, flags=PROBE | WARMUP, sender=1,
                                                           run_id=run_id, sequence=3,
                                                           intended=5, sent=6)),
            ("echo from an id that never said hello", header(ECHO, flags=PROBE, sender=999,
                                                             run_id=run_id, sequence=0)),
            # progress reports (--count-received) that could end the measured phase early
            ("progress from an id that never said hello", header(PROGRESS, sender=999,
                                                                 run_id=run_id, sequence=1)),
            ("progress of another run", header(PROGRESS, sender=1, run_id=foreign_run,
                                               sequence=1)),
            ("progress under the real id, untagged", header(PROGRESS, sender=1, run_id=run_id,
                                                            sequence=1)),
            # counters that cannot be decoded
            ("final counters 10 bytes long", header(FINAL_COUNTERS, sender=1, run_id=run_id,
                                                    payload=b"\0" * 10)),
            # kinds only a publisher sends, from a subscriber id
            ("data from a subscriber id", header(DATA, sender=1, run_id=run_id)),
            ("hello_ack from a subscriber id", header(HELLO_ACK, sender=1, run_id=run_id)),
            ("end from a subscriber id", header(END, sender=1, run_id=run_id)),
            ("final_ack from a subscriber id", header(FINAL_ACK, sender=1, run_id=run_id)),
            # a message framed as a one-fragment message: unwrapped, then refused by the core
            ("one-fragment message of random bytes",
             fragment(random_bytes(self.rng, 600), 600, 0, 1, 0)),
        ]
        # The real subscriber's id saying hello again (untagged): normal, answered, not counted.
        repeated_hellos = [("hello repeated by the real id", header(HELLO, sender=1))] * 20

        # --- to the subscriber ---
        to_subscriber = malformed_messages(self.rng, run_id) + [
            ("data of another run", header(DATA, sender=0, run_id=foreign_run, sequence=5)),
            ("probe of another run", header(DATA, flags=PROBE, sender=0, run_id=foreign_run)),
            ("end of another run", header(END, sender=0, run_id=foreign_run, sequence=5)),
            ("hello_ack of another run", header(HELLO_ACK, sender=0, run_id=foreign_run,
                                                sequence=1)),
            ("final_ack of another run", header(FINAL_ACK, sender=0, run_id=foreign_run,
                                                sequence=1)),
            ("hello from the publisher id", header(HELLO, sender=0, run_id=run_id)),
            ("echo from the publisher id", header(ECHO, sender=0, run_id=run_id)),
            ("final counters from the publisher id", header(FINAL_COUNTERS, sender=0,
                                                            run_id=run_id, payload=counters)),
            ("progress from the publisher id", header(PROGRESS, sender=0, run_id=run_id,
                                                      sequence=1)),
            ("one-fragment message of random bytes",
             fragment(random_bytes(self.rng, 600), 600, 0, 1, 0)),
        ]
        # From a subscriber id: another subscriber's back channel on a shared medium, ignored
        # without being counted (by design, see docs/hostile-input.md); allowed either way.
        uncounted_at_subscriber = [
            ("data from a subscriber id", header(DATA, sender=5, run_id=run_id, sequence=3)),
            ("echo from another subscriber", header(ECHO, sender=6, run_id=run_id)),
        ]

        for port in (self.pub_port, self.sub_port):
            self.send(port, malformed + too_large)
        self.send(self.pub_port, to_publisher + repeated_hellos)
        self.send(self.sub_port, to_subscriber + uncounted_at_subscriber)
        self.assert_still_running()

        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        # Nothing else is refused in a clean loopback run, so the counts are exact.
        self.assertEqual(pub.json["rejected"], len(to_publisher))
        self.assertGreaterEqual(sub.json["rejected"], len(to_subscriber))
        self.assertLessEqual(sub.json["rejected"], len(to_subscriber) + len(uncounted_at_subscriber))
        self.assertEqual(sub.json["subscriber"]["rejected"], sub.json["rejected"])
        # The publisher's copy of the subscriber's counters says the same.
        self.assertEqual(pub.json["subscribers"][0]["rejected"], sub.json["rejected"])
        for name, result in (("publisher", pub), ("subscriber", sub)):
            counts = reassembly_counts(result.json)
            self.assertEqual(counts.get("malformed"), len(malformed), (name, counts))
            self.assertEqual(counts.get("too large"), len(too_large), (name, counts))
            self.assertIn(f"Rejected messages: {result.json['rejected']}", result.stdout, name)
            self.assertIn(f"{len(malformed)} malformed", result.stdout, name)

    def test_stream(self):
        self.run_with_garbage(STREAM)

    def test_ping_pong(self):
        self.run_with_garbage(PING_PONG)

    def test_a_connected_subscriber_never_hears_a_stranger(self):
        # The default unicast subscriber: its socket is connected to the publisher, so the
        # kernel drops the garbage before netprof sees it. Nothing to count, nothing changed.
        self.start_pair(STREAM, subscriber_connected=True)
        malformed, too_large = malformed_fragments()
        self.send(self.sub_port, malformed_messages(self.rng, 0) + malformed + too_large)
        self.assert_still_running()
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        self.assertEqual(sub.json["rejected"], 0)
        self.assertEqual(reassembly_counts(sub.json), {})

    def test_replayed_end_changes_nothing(self):
        # Copies of the publisher's own END (it sends several itself) replayed to the
        # subscriber as soon as the spy sees one: idempotent, not refused, nothing changes.
        self.start_pair(STREAM)
        deadline = time.monotonic() + DEADLINE_S
        while not self.spy.ends and time.monotonic() < deadline:
            time.sleep(0.001)
        self.assertTrue(self.spy.ends, "the spy never saw the END")
        for _ in range(5):
            self.garbage.sendto(self.spy.ends[0], ("127.0.0.1", self.sub_port))
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        self.assertEqual(sub.json["rejected"], 0)


class ForgedMessagesTest(HostileWireCase):
    """Forged back-channel and END messages, well-formed and of this run.

    They need only a subscriber id, or this run's id, which any host on the path can read. Each
    was once taken at its word (docs/hostile-input.md, "On the wire", gives what each does now
    and what a forger can still do); none may add a subscriber, retire the real one, or end
    the test.
    """

    def attack_and_check(self, datagrams, port="publisher", start=True):
        if start:
            self.start_pair(STREAM)
        self.send(self.pub_port if port == "publisher" else self.sub_port, datagrams)
        self.assert_still_running()
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        return pub, sub

    def received_by_garbage_socket(self):
        """What the publisher sent the forger's own socket: (kind, size, run_id) each."""
        self.garbage.setblocking(False)
        seen = []
        while True:
            try:
                datagram = self.garbage.recv(70000)
            except BlockingIOError:
                return seen
            fields = HEADER.unpack_from(datagram) if len(datagram) >= HEADER.size else None
            seen.append((fields[2] if fields else None, len(datagram), fields[5] if fields else None))

    def assert_only_challenges_came_back(self, hellos_sent):
        # A hello without a cookie gets one challenge, a header alone, no run id, and nothing
        # else ever goes to its address (wire.hpp, "Address proof").
        seen = self.received_by_garbage_socket()
        self.assertTrue(seen, "no challenge came back")
        self.assertLessEqual(len(seen), hellos_sent)
        for kind, size, run_id in seen:
            self.assertEqual((kind, size, run_id), (CHALLENGE, HEADER.size, 0))

    def test_flood_of_hellos_from_many_ids(self):
        # Each is answered with a challenge alone; none ever proves its address, so none is
        # admitted, and the data never goes to the forger (was: each hello added a peer that
        # received the stream).
        flood = [(f"hello {i}", header(HELLO, sender=100 + i)) for i in range(200)]
        pub, _ = self.attack_and_check(flood)
        self.assertEqual(pub.json["rejected"], 0)
        self.assertGreaterEqual(pub.json["publisher"]["challenges_sent"], len(flood) + 1)
        self.assert_only_challenges_came_back(len(flood))

    def test_flood_of_hellos_from_one_new_id(self):
        flood = [("hello 4242", header(HELLO, sender=4242))] * 200
        pub, _ = self.attack_and_check(flood)
        self.assertEqual(pub.json["rejected"], 0)
        self.assert_only_challenges_came_back(len(flood))

    def test_hellos_with_made_up_cookies_are_rejected(self):
        flood = [(f"hello {i}", header(HELLO, sender=100 + i, intended=0x5EED + i))
                 for i in range(200)]
        pub, _ = self.attack_and_check(flood)
        self.assertEqual(pub.json["rejected"], len(flood))
        self.assert_only_challenges_came_back(len(flood))

    def test_final_counters_from_an_id_that_never_said_hello(self):
        run_id = self.start_pair(STREAM)
        forged = [("counters of id 500", header(FINAL_COUNTERS, sender=500, run_id=run_id,
                                                 payload=b"\0" * FINAL_COUNTERS_SIZE))]
        self.send(self.pub_port, forged)
        self.assert_still_running()
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        self.assertEqual(pub.json["rejected"], 1)

    def send_counters_after_the_end(self, counters, copies=10):
        """Forged final counters under the real id, answering the real END, from the spy's
        reading of it: sent again over 200 ms so that some land after the real ones."""
        deadline = time.monotonic() + DEADLINE_S
        while not self.spy.ends and time.monotonic() < deadline:
            time.sleep(0.001)
        self.assertTrue(self.spy.ends, "the spy never saw the END")
        end_fields = HEADER.unpack_from(self.spy.ends[0])
        forged = header(FINAL_COUNTERS, sender=1, run_id=end_fields[5], sequence=end_fields[6],
                        record_count=self.spy.subscriber_tag, payload=counters(end_fields[6]))
        for _ in range(copies):
            self.garbage.sendto(forged, ("127.0.0.1", self.pub_port))
            time.sleep(0.02)
        return copies

    def test_implausible_counters_under_the_real_id_are_refused(self):
        # An on-path forger with the run id, the END's count and the subscriber's tag: its
        # counters say everything arrived within 1 ns (was: taken, exit 0 SUCCESS with the
        # subscriber at 2.00 T msg/s over a 1 ns measured time).
        def counters(sent):
            return COUNTERS.pack(sent, sent, 0, 0, 0, sent, sent * 128, sent * 180, 1, 0, 0, 0, 0)

        self.start_pair(STREAM)
        copies = self.send_counters_after_the_end(counters)
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        seen, own = pub.json["subscribers"][0], sub.json["subscriber"]
        self.assertEqual(seen["throughput"], own["throughput"])
        self.assertLess(seen["throughput"]["messages_per_second"], 10_000)
        # The publisher stops reading once every real counter is in and its ENDs are out.
        self.assertGreaterEqual(pub.json["rejected"], 1)
        self.assertLessEqual(pub.json["rejected"], copies)

    def test_departing_counters_without_the_instance_tag_are_refused(self):
        # A blind forger knows the id and (from what subscribers send) the run id, not the
        # instance tag (was: taken, the healthy subscriber reported as having left early, FAIL).
        run_id = self.start_pair(STREAM)
        forged = [("departing counters", header(FINAL_COUNTERS, flags=DEPARTING, sender=1,
                                                run_id=run_id, payload=COUNTERS.pack(*[0] * 13)))]
        pub, _ = self.attack_and_check(forged, start=False)
        self.assertEqual(pub.json["rejected"], 1)

    def test_hello_with_the_real_id_and_a_new_instance_tag(self):
        # A restart is believed only once the new instance proves its address, then echoes a
        # real probe of this run or sends this run's final counters: the hello alone is
        # answered with a challenge, nothing more.
        forged = [("hello id 1, tag 0x1234", header(HELLO, sender=1, record_count=0x1234))]
        pub, _ = self.attack_and_check(forged)
        self.assertEqual(pub.json["rejected"], 0)
        self.assertEqual(pub.json["subscribers"][0]["restarts"], 0)
        self.assert_only_challenges_came_back(1)

    def forge_end_mid_run(self, token):
        """An END of this run with a count never sent, sent to the subscriber mid-run."""
        run_id = self.start_pair(STREAM)
        forged = [("end with a made-up count", header(END, sender=0, run_id=run_id,
                                                      intended=token(), sequence=10**9))]
        self.send(self.sub_port, forged)
        self.assert_still_running()
        pub, sub = self.finish_pair()
        self.assert_figures_untouched(pub, sub)
        self.assertEqual(sub.json["rejected"], 1)
        return pub

    def test_end_without_the_end_token_is_rejected_at_once(self):
        # The run id is in everything the subscriber sends; the end token only in what its
        # publisher sent it (was: the subscriber took the END and answered it).
        pub = self.forge_end_mid_run(token=lambda: 0)
        self.assertEqual(pub.json["rejected"], 0)  # no counters went back for it

    def test_forged_end_mid_run(self):
        # From a peer on the path, who read the token: the subscriber takes the END, sends its
        # counters back (the publisher refuses them: they carry a count it never sent, before
        # its own END), and drops the END at the next measured message, which a real
        # publisher never sends after its END.
        pub = self.forge_end_mid_run(token=lambda: self.spy.end_token)
        self.assertEqual(pub.json["rejected"], 1)


if __name__ == "__main__":
    unittest.main()
