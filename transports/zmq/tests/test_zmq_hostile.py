"""End-to-end: strangers and hostile limits against the ZeroMQ transport (issue 18).

Strangers are this test speaking ZMTP from Python (zmtp_stranger.py): frames announcing 16 MiB,
a SUB that never reads, a connection without the --zmq-curve key. Limits are set on netprof
alone by a tiny Python launcher that execs it (so the PID the test tracks is netprof's). Every
process has a deadline and is killed by PID in cleanup; socket files live in the test's
temporary directory. docs/hostile-input.md, section ZeroMQ, lists each case.
"""

import os
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
import unittest

from netprof_test_case import NetprofTestCase, sanitized
from test_zmq import free_tcp_port
from zmtp_stranger import NETPROF_MAGIC, Stranger

DEADLINE_S = 40
MIB = 1 << 20


def launcher(limits=(), umask=None):
    """A command prefix that sets resource limits (soft and hard) and the umask, then execs
    netprof in place."""
    code = ("import os, resource, sys\n"
            f"for name, value in {list(limits)!r}:\n"
            "    resource.setrlimit(getattr(resource, name), (value, value))\n"
            f"if {umask!r} is not None:\n"
            f"    os.umask({umask!r})\n"
            "os.execv(sys.argv[1], sys.argv[1:])\n")
    return (sys.executable, "-c", code)


SANITIZED = "a sanitizer build reserves terabytes of address space before main"


def memory_kib(pid, field):
    """VmRSS or VmHWM of a live process, in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for PID {pid}")


def connect_as_nobody(path):
    """Connects to a Unix socket as uid/gid 65534 from a forked child: "connected", "refused"
    (permission denied) or the child's exit status."""
    outcomes = {0: "connected", 1: "refused"}
    child = os.fork()
    if child == 0:
        code = 2
        try:
            signal.alarm(10)  # the child's own deadline
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(path)
            code = 0
        except PermissionError:
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    return outcomes.get(os.waitstatus_to_exitcode(status), f"status {status}")


class ZmqHostileCase(NetprofTestCase):
    def tcp(self):
        port = free_tcp_port()
        return f"tcp://127.0.0.1:{port}", ("127.0.0.1", port)

    def start_run(self, *publisher_args, subscriber_args=(), pub_endpoint=None, wait=10):
        """A publisher and one subscriber over tcp; returns (pub, sub, pub address, sub
        address), each process a (process, json path) pair."""
        pub_endpoint, pub_address = pub_endpoint or self.tcp()
        sub_endpoint, sub_address = self.tcp()
        pub = self.start("-i", "0", "--zmq", pub_endpoint, "--wait", wait, *publisher_args,
                         json_name="pub")
        sub = self.start("-i", "1", "--zmq", sub_endpoint, "--zmq", pub_endpoint, "--wait", wait,
                         *subscriber_args, json_name="sub")
        return pub, sub, pub_address, sub_address

    def assert_success(self, pub, sub):
        pub_done = self.finish(*pub, deadline_s=DEADLINE_S)
        sub_done = self.finish(*sub, deadline_s=DEADLINE_S)
        self.assertEqual(pub_done.returncode, 0, pub_done.stdout + pub_done.stderr)
        self.assertEqual(sub_done.returncode, 0, sub_done.stdout + sub_done.stderr)
        report = pub_done.json
        [summary] = report["subscribers"]
        self.assertEqual(summary["received"], report["publisher"]["messages_sent"])
        self.assertEqual(summary["lost"], 0)
        return pub_done, sub_done

    def wait_for_measuring(self, process, seconds=1.0):
        """Gives the run time to reach its measured phase; fails if the process already ended."""
        time.sleep(seconds)
        self.assertIsNone(process.poll(), "the run ended before the strangers came")


class OversizedFramesTest(ZmqHostileCase):
    """A connection announcing a 16 MiB frame made libzmq allocate it: 20 such connections,
    each sending half, took a publisher from 10 to 317 MB. Each role now reads no more than it
    needs (ZMQ_MAXMSGSIZE), libzmq closes such a connection at its frame header, and the core
    never hears of it."""

    STRANGERS = 20

    def flood(self, address, socket_type):
        strangers = []
        for _ in range(self.STRANGERS):
            stranger = Stranger(address)
            self.addCleanup(stranger.close)
            stranger.greet(socket_type)
            stranger.send_oversized(16 * MIB, 8 * MIB)
            strangers.append(stranger)
        return strangers

    def check_flood(self, target, address, socket_type):
        pub, sub, pub_address, sub_address = self.start_run(
            "-t", "4", "--send-hz", "2000", "--warmup-time", "0.2")
        process = pub[0] if target == "publisher" else sub[0]
        self.wait_for_measuring(process)
        before = memory_kib(process.pid, "VmRSS")
        self.flood(pub_address if target == "publisher" else sub_address, socket_type)
        time.sleep(0.3)
        grown = memory_kib(process.pid, "VmHWM") - before
        self.assertLess(grown, 40 * 1024,
                        f"the {target} grew by {grown} KiB for {self.STRANGERS} strangers")
        pub_done, sub_done = self.assert_success(pub, sub)
        self.assertEqual(pub_done.json["rejected"], 0)  # the core never heard of them
        return pub_done, sub_done

    def test_frames_announcing_16_mib_leave_the_publisher_small(self):
        pub_done, _ = self.check_flood("publisher", None, b"SUB")
        notes = " ".join(pub_done.json["endpoint"]["notes"])
        # The largest control message a publisher reads: final counters with their addendum,
        # 52 B header + 104 B counters + 40 B addendum (+ ZeroMQ's 1-byte topic).
        self.assertIn("reads messages of at most 197 B", notes)

    def test_frames_announcing_16_mib_leave_the_subscriber_small(self):
        # The subscriber binds its own endpoint too (MADARA's rule); a stranger PUB connects.
        self.check_flood("subscriber", None, b"PUB")


class StrangerSubscriberTest(ZmqHostileCase):
    """With --zmq-nodrop a subscribed connection that never reads fills its queue and holds
    every message back. The report blamed the healthy subscriber ("vanished ... killed,
    crashed"); it now names the stranger from the transport's count of subscribed
    connections."""

    def test_a_stranger_that_never_reads_is_named_not_the_subscriber(self):
        pub_endpoint, pub_address = self.tcp()
        pub = self.start("-i", "0", "--zmq", pub_endpoint, "--zmq-nodrop", "--wait", "2",
                         "-t", "3", "--warmup-time", "0.2", json_name="pub")
        time.sleep(0.3)
        stranger = Stranger(pub_address, receive_buffer=4096)
        self.addCleanup(stranger.close)
        stranger.greet(b"SUB")
        stranger.subscribe_to_everything()  # ... and never reads again
        sub_endpoint, _ = self.tcp()
        sub = self.start("-i", "1", "--zmq", sub_endpoint, "--zmq", pub_endpoint, "--wait", "10",
                         "--idle-timeout", "3", json_name="sub")
        pub_done = self.finish(*pub, deadline_s=DEADLINE_S)
        self.finish(*sub, deadline_s=DEADLINE_S)
        problems = pub_done.json["result"]["problems"]
        said = "\n".join(problems)
        self.assertEqual(pub_done.returncode, 3, pub_done.stdout)
        self.assertIn("held back by a stranger: 2 connections subscribed, but the run has 1 "
                      "subscriber(s)", said)
        self.assertIn("subscriber 1 sent no final counters: the stranger connection kept the END "
                      "from it (not this subscriber's fault)", said)
        self.assertNotIn("killed, crashed", said)


class SocketFileTest(ZmqHostileCase):
    """ipc:// socket files took their mode from the umask: 0777 under umask 000, and another
    user connected and received the stream. They are now 0600, like the shm segment."""

    def start_publisher_under_umask_000(self, path):
        process, _ = self.start("-i", "0", "--zmq", f"ipc://{path}", "--wait", "5", "--quiet",
                                prefix=launcher(umask=0))
        deadline = time.monotonic() + 10
        while not os.path.exists(path):
            self.assertIsNone(process.poll(), "the publisher ended before binding")
            self.assertLess(time.monotonic(), deadline, "no socket file appeared")
            time.sleep(0.05)
        return process

    def test_ipc_socket_file_is_0600_under_umask_000(self):
        path = os.path.join(self._tmp.name, "pub.ipc")
        self.start_publisher_under_umask_000(path)
        mode = os.stat(path).st_mode
        self.assertTrue(stat.S_ISSOCK(mode))
        self.assertEqual(stat.S_IMODE(mode), 0o600, oct(stat.S_IMODE(mode)))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to act as another user (uid 65534)")
    def test_another_user_cannot_connect(self):
        # A directory every user may enter, so only the socket file's own mode keeps them out.
        shared = tempfile.mkdtemp(prefix="netprof-e2e-shared-")
        self.addCleanup(shutil.rmtree, shared, ignore_errors=True)
        os.chmod(shared, 0o755)
        path = os.path.join(shared, "pub.ipc")
        self.start_publisher_under_umask_000(path)
        self.assertEqual(connect_as_nobody(path), "refused")


class CurveTest(ZmqHostileCase):
    """--zmq-curve FILE: CURVE, with the publisher's secret key in a file every process of the
    run is given. Without the file a process neither connects to the publisher nor is heard."""

    def key_file(self, name, size=32, mode=0o600):
        path = os.path.join(self._tmp.name, name)
        with open(path, "wb") as key:
            key.write(os.urandom(size))
        os.chmod(path, mode)
        return path

    def test_a_run_with_curve_passes_and_a_stranger_hears_nothing(self):
        key = self.key_file("run.key")
        pub, sub, pub_address, _ = self.start_run(
            "-t", "3", "--send-hz", "2000", "--warmup-time", "0.2", "--zmq-curve", key,
            subscriber_args=("--zmq-curve", key))
        self.wait_for_measuring(pub[0])
        stranger = Stranger(pub_address)
        self.addCleanup(stranger.close)
        try:
            stranger.greet(b"SUB")
            stranger.subscribe_to_everything()
        except OSError:
            pass  # refused already: a CURVE server hangs up on a NULL greeting
        heard = stranger.receive_for(1.0)
        self.assertNotIn(NETPROF_MAGIC, heard)
        self.assertLessEqual(len(heard), 64, heard)  # at most a greeting or an ERROR command
        pub_done, _ = self.assert_success(pub, sub)
        self.assertIn("CURVE", " ".join(pub_done.json["endpoint"]["notes"]))

    def test_a_subscriber_with_another_key_is_told_why_it_heard_nothing(self):
        key = self.key_file("run.key")
        other = self.key_file("other.key")
        pub_endpoint, pub_address = self.tcp()
        pub, sub, _, _ = self.start_run(
            "-t", "3", "--send-hz", "2000", "--warmup-time", "0.2", "--zmq-curve", key,
            subscriber_args=("--zmq-curve", key), pub_endpoint=(pub_endpoint, pub_address))
        intruder_endpoint, _ = self.tcp()
        intruder = self.start("-i", "2", "--zmq", intruder_endpoint, "--zmq", pub_endpoint,
                              "--zmq-curve", other, "--wait", "2", json_name="intruder")
        done = self.finish(*intruder, deadline_s=DEADLINE_S)
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        said = "\n".join(done.json["result"]["problems"])
        self.assertIn("no publisher was heard", said)
        self.assertIn("zmq: no publisher got through --zmq-curve", said)
        self.assert_success(pub, sub)

    def test_a_publisher_without_the_key_is_not_heard(self):
        key = self.key_file("run.key")
        pub, sub, _, _ = self.start_run("-t", "1", subscriber_args=("--zmq-curve", key), wait=2)
        pub_done = self.finish(*pub, deadline_s=DEADLINE_S)
        sub_done = self.finish(*sub, deadline_s=DEADLINE_S)
        self.assertEqual(pub_done.returncode, 3)
        self.assertEqual(sub_done.returncode, 3)
        self.assertIn("zmq: no publisher got through --zmq-curve", sub_done.json["result"]["problems"][-1])

    def test_local_pair_with_curve_passes(self):
        key = self.key_file("pair.key")
        done = self.run_netprof("--local-pair", "--zmq-curve", key, "-t", "1", "--send-hz",
                                "2000", json_name="pair", deadline_s=DEADLINE_S)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(done.json["subscribers"][0]["lost"], 0)

    def test_unusable_key_files_are_refused_in_one_line(self):
        fifo = os.path.join(self._tmp.name, "fifo")
        os.mkfifo(fifo, 0o600)
        cases = {
            "missing": (os.path.join(self._tmp.name, "none"), "No such file or directory"),
            "readable by others": (self.key_file("shared.key", mode=0o644), "chmod 600"),
            "31 bytes": (self.key_file("short.key", size=31), "expected exactly 32 bytes"),
            "33 bytes": (self.key_file("long.key", size=33), "expected exactly 32 bytes"),
            "a FIFO": (fifo, "not a regular file"),
            "a directory": (self._tmp.name, "not a regular file"),
        }
        endpoint, _ = self.tcp()
        for case, (path, reason) in cases.items():
            with self.subTest(case):
                done = self.run_netprof("-i", "0", "--zmq", endpoint, "--zmq-curve", path,
                                        deadline_s=DEADLINE_S)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(done.stdout, "")
                lines = done.stderr.splitlines()
                self.assertEqual(len(lines), 1, done.stderr)
                self.assertTrue(lines[0].startswith(f"netprof: bad --zmq-curve value '{path}'"))
                self.assertIn(reason, lines[0])


class ResourceLimitsTest(ZmqHostileCase):
    """libzmq aborted (exit 134) when it could not make a descriptor or a thread. The limits
    are now checked before the socket opens: exit 3 and one line naming the limit."""

    def assert_refused(self, limits, *args, mentions):
        done = self.run_netprof(*args, prefix=launcher(limits), deadline_s=DEADLINE_S)
        self.assertEqual(done.returncode, 3, f"{limits}: {done.stderr}")
        lines = done.stderr.splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertTrue(lines[0].startswith("netprof: "), lines[0])
        self.assertIn(mentions, lines[0])

    def run_netprof(self, *args, prefix=(), deadline_s=DEADLINE_S):
        process, _ = self.start(*args, prefix=prefix)
        return self.finish(process, deadline_s=deadline_s)

    def test_too_few_descriptors_exit_3_naming_ulimit_n(self):
        endpoint, _ = self.tcp()
        for limit in (5, 6, 7, 9):
            for args in (["-i", "0", "--zmq", endpoint, "--wait", "1"],
                         ["-i", "1", "--zmq", "ipc://*", "--zmq", endpoint, "--wait", "1"],
                         ["--local-pair", "--zmq", "tcp://127.0.0.1:*", "-t", "0.3"]):
                with self.subTest(limit=limit, role=args[0]):
                    self.assert_refused([("RLIMIT_NOFILE", limit)], *args,
                                        mentions=f"ulimit -n (RLIMIT_NOFILE) is {limit}")

    @unittest.skipIf(sanitized(), SANITIZED)
    def test_too_little_address_space_exits_3_naming_ulimit_v(self):
        endpoint, _ = self.tcp()
        # Above what loading the binary takes (about 33 MiB with every transport's library:
        # 22 before Fast DDS, whose libfastrtps brings sqlite3, Kerberos and TLS libraries),
        # below what ZeroMQ needs (between 56 and 64 MiB).
        for limit_mib in (36, 44, 52):
            for args in (["-i", "0", "--zmq", endpoint, "--wait", "1"],
                         ["--local-pair", "-t", "0.3", "--zmq", "tcp://127.0.0.1:*"]):
                with self.subTest(limit_mib=limit_mib, role=args[0]):
                    self.assert_refused([("RLIMIT_AS", limit_mib * MIB)], *args,
                                        mentions="ulimit -v (RLIMIT_AS, address space) is "
                                                 f"{limit_mib * 1024} KiB")

    @unittest.skipIf(sanitized(), SANITIZED)
    def test_too_little_data_space_exits_3_naming_ulimit_d(self):
        self.assert_refused([("RLIMIT_DATA", 12 * MIB)], "--local-pair", "-t", "0.3",
                            "--zmq", "tcp://127.0.0.1:*", mentions="ulimit -d (RLIMIT_DATA")

    def test_ordinary_limits_still_run(self):
        limits = [("RLIMIT_NOFILE", 64)] + ([] if sanitized() else [("RLIMIT_AS", 512 * MIB)])
        done = self.run_netprof("--local-pair", "--zmq", "tcp://127.0.0.1:*", "-t", "0.5",
                                "--quiet", prefix=launcher(limits))
        self.assertEqual(done.returncode, 0, done.stderr)


if __name__ == "__main__":
    unittest.main()
