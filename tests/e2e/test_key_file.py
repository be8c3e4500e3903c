"""End-to-end: --key-file, a shared secret that authenticates every control message.

With a key, hellos, challenges, acknowledgements, END, final counters and final_ack end with a
MAC (src/core/protocol/control_authentication.hpp); a message without a valid one is refused, so even an
on-path forger who reads the run id and the end token can neither join, end nor skew a run.
The file is checked as ssh checks a private key.
"""

import os
import socket
import stat
import time
import unittest

from netprof_test_case import NetprofTestCase, free_udp_port
from test_hostile_wire import DATA, END, HEADER, HELLO, HELLO_ACK, header

DEADLINE_S = 30
PACED = ["--send-hz", "1000", "-t", "2", "--warmup-time", "0.2"]
AUTHENTICATED = 8  # wire flag: the payload ends with a 16-byte MAC


class KeyFileCase(NetprofTestCase):
    def key(self, name="key", content=None, mode=0o600):
        path = self.json_path(name)
        with open(path, "wb") as out:
            out.write(os.urandom(32) if content is None else content)
        os.chmod(path, mode)
        return path


class KeyFileRunTest(KeyFileCase):
    def test_a_local_pair_with_a_key_runs_over_every_transport(self):
        key = self.key()
        for transport in (["-u", f"127.0.0.1:{free_udp_port()}", "-u",
                           f"127.0.0.1:{free_udp_port()}"],
                          ["--zmq", "tcp://127.0.0.1:*"],
                          ["--shm", f"keytest-{os.getpid()}"]):
            with self.subTest(transport=transport[0]):
                result = self.run_netprof("--local-pair", "-t", "1", "--send-hz", "2000",
                                          "--key-file", key, *transport, json_name="pair")
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                self.assertEqual(result.json["rejected"], 0)
                self.assertEqual(result.json["subscribers"][0]["lost"], 0)

    def test_different_keys_are_named(self):
        pub_addr = f"127.0.0.1:{free_udp_port()}"
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "--wait", "2",
                                         "--key-file", self.key("one"), json_name="pub")
        subscriber, sub_json = self.start("-i", "1", "-u", f"127.0.0.1:{free_udp_port()}", "-u",
                                          pub_addr, "--wait", "2", "--key-file",
                                          self.key("two"), json_name="sub")
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 3)
        self.assertEqual(sub.returncode, 3)
        # The publisher answers no hello it cannot authenticate, so only it can say why.
        self.assertIn("refused for their MAC: does every process have the same --key-file",
                      pub.stdout)

    def test_strangers_without_the_key_get_nothing_and_forge_nothing(self):
        # A hello without a MAC is not even challenged; an END copying the run id and the end
        # token (read from the real acknowledgement) but without a MAC ends nothing.
        key = self.key()
        spy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(spy.close)
        spy.bind(("127.0.0.1", 0))
        spy.settimeout(0.05)
        spy_addr = f"127.0.0.1:{spy.getsockname()[1]}"
        pub_port, sub_port = free_udp_port(), free_udp_port()
        pub_addr, sub_addr = f"127.0.0.1:{pub_port}", f"127.0.0.1:{sub_port}"
        # The spy is one more peer of both: it reads all they send (as on a shared path), and
        # the subscriber's socket stays unconnected, so it hears the spy.
        subscriber, sub_json = self.start("-i", "1", "-u", sub_addr, "-u", pub_addr, "-u",
                                          spy_addr, "--wait", "20", "--key-file", key,
                                          json_name="sub")
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "-u", spy_addr, "--wait",
                                         "20", "--key-file", key, *PACED, json_name="pub")
        ack = None
        deadline = time.monotonic() + 10
        while ack is None and time.monotonic() < deadline:
            try:
                datagram = spy.recv(70000)
            except socket.timeout:
                continue
            if len(datagram) >= HEADER.size and HEADER.unpack_from(datagram)[2] == HELLO_ACK:
                ack = HEADER.unpack_from(datagram)
        self.assertIsNotNone(ack, "the spy never saw an acknowledgement")
        self.assertTrue(ack[3] & AUTHENTICATED)
        run_id, token = ack[5], ack[7]
        stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(stranger.close)
        stranger.bind(("127.0.0.1", 0))
        stranger.sendto(header(HELLO, sender=5, record_count=77), ("127.0.0.1", pub_port))
        forged = [header(END, run_id=run_id, intended=token, sequence=10**9),
                  header(END, flags=AUTHENTICATED, run_id=run_id, intended=token,
                         sequence=10**9, payload=bytes(16))]
        for datagram in forged:
            stranger.sendto(datagram, ("127.0.0.1", sub_port))
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(sub.json["subscriber"]["received"], pub.json["publisher"]["messages_sent"])
        self.assertEqual(sub.json["rejected"], len(forged))
        self.assertEqual(pub.json["rejected"], 1)  # the stranger's hello
        stranger.settimeout(0.2)
        with self.assertRaises(socket.timeout, msg="the stranger was answered"):
            stranger.recv(70000)


class KeyFileReplayTest(KeyFileCase):
    """Issue 30, item 3: run 1's authenticated acknowledgement, replayed into run 2 with the same
    key and ports, carries a valid MAC but run 1's run id and its subscriber's instance tag: it
    is counted as foreign, never judged (was: run 2's subscriber FAILed with a false "another
    live process uses -i 1")."""

    def spy_socket(self):
        spy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(spy.close)
        spy.bind(("127.0.0.1", 0))
        spy.settimeout(0.05)
        return spy, f"127.0.0.1:{spy.getsockname()[1]}"

    def start_run(self, key, pub_addr, sub_addr, spy_addr, name):
        # The spy is one more peer of both, so it reads all they send, as on a shared path.
        subscriber, sub_json = self.start("-i", "1", "-u", sub_addr, "-u", pub_addr, "-u",
                                          spy_addr, "--wait", "20", "--key-file", key,
                                          json_name=f"{name}-sub")
        publisher, pub_json = self.start("-i", "0", "-u", pub_addr, "-u", spy_addr, "--wait",
                                         "20", "--key-file", key, *PACED, json_name=f"{name}-pub")
        return (publisher, pub_json), (subscriber, sub_json)

    @staticmethod
    def next_message(spy, kind, not_of_run=None):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                datagram = spy.recv(70000)
            except socket.timeout:
                continue
            if len(datagram) < HEADER.size:
                continue
            fields = HEADER.unpack_from(datagram)
            if fields[2] == kind and fields[5] != not_of_run:
                return datagram, fields[5]
        raise AssertionError(f"the spy never saw a message of kind {kind}")

    def test_a_replayed_acknowledgement_of_another_run_is_counted_not_judged(self):
        key = self.key()
        spy, spy_addr = self.spy_socket()
        sub_port = free_udp_port()
        pub_addr, sub_addr = f"127.0.0.1:{free_udp_port()}", f"127.0.0.1:{sub_port}"
        first = self.start_run(key, pub_addr, sub_addr, spy_addr, "run1")
        recorded, first_run = self.next_message(spy, HELLO_ACK)
        for process, path in first:
            self.assertEqual(self.finish(process, path, DEADLINE_S).returncode, 0)

        (publisher, pub_json), (subscriber, sub_json) = self.start_run(key, pub_addr, sub_addr,
                                                                       spy_addr, "run2")
        # Data of run 2 comes only once its subscriber was taken in.
        self.next_message(spy, DATA, not_of_run=first_run)
        for _ in range(3):  # from the spy, a peer the subscriber hears, as a host on the path
            spy.sendto(recorded, ("127.0.0.1", sub_port))
        pub = self.finish(publisher, pub_json, DEADLINE_S)
        sub = self.finish(subscriber, sub_json, DEADLINE_S)
        self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr)
        self.assertNotIn("another live process", sub.stdout)
        self.assertEqual(sub.json["foreign_run_messages"], 3)
        self.assertIn("3 messages of another run", sub.stdout)
        self.assertEqual(sub.json["subscriber"]["received"], pub.json["publisher"]["messages_sent"])


class KeyFileRefusedTest(KeyFileCase):
    def assert_refused(self, path, says):
        result = self.run_netprof("--local-pair", "-t", "1", "--key-file", path)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        self.assertIn(f"invalid value '{path}' for --key-file: {says}", result.stderr)

    def test_a_key_others_may_read(self):
        self.assert_refused(self.key(mode=0o644), "others may read it")

    def test_a_key_too_short(self):
        self.assert_refused(self.key(content=b"short"), "it holds 5 B")

    def test_a_missing_key(self):
        self.assert_refused(self.json_path("absent"), "cannot read it (No such file")

    def test_a_symbolic_link(self):
        link = self.json_path("link")
        os.symlink(self.key(), link)
        self.assert_refused(link, "it is a symbolic link")

    def test_a_fifo_is_refused_not_waited_on(self):
        fifo = self.json_path("fifo")
        os.mkfifo(fifo, 0o600)
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assert_refused(fifo, "not a regular file")


if __name__ == "__main__":
    unittest.main()
