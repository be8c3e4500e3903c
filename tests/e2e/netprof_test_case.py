"""The end-to-end tests' view of scripts/lib/netprof_harness.py: a TestCase whose netprof
processes each run under a deadline and are killed by PID in cleanup, so a hung run fails its
test instead of hanging CI. Only loopback addresses are used.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "lib"))
from netprof_processes import DeadlineExceeded, Processes, free_port  # noqa: E402
from live_status import LiveStatus  # noqa: E402

NETPROF = os.environ.get("NETPROF_BIN", "netprof")


def sanitized():
    """True when netprof is built with a sanitizer (ASan or TSan), whose runtime changes what a
    process can do: it reserves terabytes of address space before main, and starts threads."""
    path = shutil.which(NETPROF) or NETPROF
    with open(path, "rb") as binary:
        content = binary.read()
    return b"__asan_init" in content or b"__tsan_init" in content
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_DEADLINE_S = 60
NOBODY = 65534  # "nobody" on Debian; the name may differ elsewhere, the uid is what counts
# Runs what follows it as uid/gid 65534, in place (the PID the harness tracks is netprof's).
AS_NOBODY = (sys.executable, "-c",
             "import os, sys; os.setgroups([]); os.setgid(65534); os.setuid(65534); "
             "os.execv(sys.argv[1], sys.argv[1:])")


def become_nobody():
    """A preexec_fn: the child drops to uid/gid 65534 and no supplementary groups."""
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def free_udp_port():
    return free_port()


def free_tcp_port_run(length):
    """A free loopback port whose next `length` - 1 are free too (the further channels some
    transports listen at: NNG's back and control channels, ZeroMQ's pushpull); a small race
    we accept."""
    for _ in range(64):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as first:
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            if port + length - 1 > 65535:
                continue
            if all(tcp_port_is_free(port + k) for k in range(1, length)):
                return port
    raise AssertionError(f"no {length} consecutive free tcp ports")


def tcp_port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def accepts(port):
    """Whether something accepts TCP connections on 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def unanswered_tcp_port():
    """A loopback port whose SYNs go unanswered, as a host that drops packets: a listener with a
    backlog of 0 whose accept queue holds connections nobody accepts, so the kernel drops every
    new SYN and a connect(2) there waits for TCP's own timeout (two minutes). Yields the port."""
    with contextlib.ExitStack() as held:
        listener = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        for _ in range(3):  # more than the queue holds: the last ones stay unanswered too
            filler = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
        yield port


def run_script(script, *args, deadline_s=DEFAULT_DEADLINE_S):
    """Runs one of scripts/ from the checkout's root: (exit status, stdout, stderr).
    AssertionError when it outlives its deadline (it is killed first)."""
    processes = Processes()
    try:
        done = processes.finish(processes.start([script, *args], cwd=ROOT),
                                deadline_s=deadline_s)
    except DeadlineExceeded as error:
        raise AssertionError(f"{os.path.basename(script)} {error}") from None
    finally:
        processes.kill_all()
    return done.returncode, done.stdout, done.stderr


class NetprofTestCase(LiveStatus, unittest.TestCase):
    def setUp(self):
        self._processes = Processes()
        self._tmp = tempfile.TemporaryDirectory(prefix="netprof-e2e-")
        self.addCleanup(self._tmp.cleanup)
        self.addCleanup(self._processes.kill_all)

    def start_listening_server(self, argv, port, name):
        """A server of the test's own (a broker), killed by PID in cleanup, once it accepts
        connections on 127.0.0.1:port (at most 10 s)."""
        server = self._processes.start(argv)
        deadline = time.monotonic() + 10
        while not accepts(port):
            self.assertIsNone(server.poll(), f"{name} exited before it accepted connections")
            self.assertLess(time.monotonic(), deadline, f"{name} never accepted connections")
            time.sleep(0.05)
        return server

    def use_own_tmpdir(self):
        """TMPDIR is this test's folder until it ends: what netprof makes there (a broker's
        folder) is this test's alone, not that of a test running beside it."""
        before = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = self._tmp.name
        self.addCleanup(lambda: os.environ.__setitem__("TMPDIR", before) if before is not None
                        else os.environ.pop("TMPDIR", None))

    def json_path(self, name):
        return os.path.join(self._tmp.name, name + ".json")

    def start(self, *args, json_name=None, own_group=False, prefix=(), netprof=(NETPROF,),
              stderr=subprocess.PIPE):
        """Starts netprof; returns (process, json_path or None). With `own_group` it leads a
        process group of its own, which a test may signal as a whole (os.killpg) and which
        cleanup kills as a whole. `prefix` runs it through another command (`ip netns exec NS`,
        which execs netprof in place, so the tracked PID is netprof's own); `netprof` is the
        binary to run after it, or () when `prefix` names it."""
        argv = [*prefix, *netprof, *args]
        path = None
        if json_name:
            path = self.json_path(json_name)
            argv += ["--json", path]
        return self._processes.start(argv, own_group=own_group, stderr=stderr), path

    def finish(self, process, path=None, deadline_s=DEFAULT_DEADLINE_S):
        try:
            return self._processes.finish(process, path, deadline_s)
        except DeadlineExceeded as error:
            self.fail(f"netprof {error}")

    def netprof_anyone_may_run(self):
        """A copy of netprof in a folder of its own (0755, removed after the test) that uid 65534
        may run: the build folder may sit in a home no other user may enter (root's is 0700 on
        Debian, as is every home bookworm's adduser makes). Tried in the temporary folder, then
        in /tmp; the test is skipped, with the reason, when that user can run neither copy."""
        if os.geteuid() != 0:
            self.skipTest("needs root to run netprof as uid 65534")
        reasons = []
        for parent in dict.fromkeys((tempfile.gettempdir(), "/tmp")):
            copy = self._copy_of_netprof_in(parent)
            reason = self._why_nobody_cannot_run(copy)
            if reason is None:
                return copy
            reasons.append(f"{copy}: {reason}")
        self.skipTest("uid 65534 cannot run a copy of netprof (" + "; ".join(reasons) +
                      "): is every folder above it open to other users?")

    def _copy_of_netprof_in(self, parent):
        folder = tempfile.mkdtemp(prefix="netprof-e2e-anyone-", dir=parent)
        self.addCleanup(shutil.rmtree, folder, True)
        os.chmod(folder, 0o755)
        copy = os.path.join(folder, "netprof")
        shutil.copy2(shutil.which(NETPROF) or NETPROF, copy)
        os.chmod(copy, 0o755)
        return copy

    @staticmethod
    def _why_nobody_cannot_run(copy):
        try:
            probe = subprocess.run([copy, "--version"], capture_output=True, text=True,
                                   timeout=20, preexec_fn=become_nobody)
        except OSError as error:
            return error.strerror
        return None if probe.returncode == 0 else f"exit {probe.returncode}"

    def start_as_nobody(self, *args, json_name=None, stderr=subprocess.PIPE):
        """start(), as uid/gid 65534, of a copy of netprof that user may reach."""
        copy = self.netprof_anyone_may_run()
        return self.start(*args, json_name=json_name, prefix=(*AS_NOBODY, copy), netprof=(),
                          stderr=stderr)

    def run_netprof(self, *args, json_name=None, deadline_s=DEFAULT_DEADLINE_S):
        process, path = self.start(*args, json_name=json_name)
        return self.finish(process, path, deadline_s)

    def assert_refused_in_one_line(self, args, status, *words):
        """netprof ARGS exits with STATUS and one line on stderr naming every one of WORDS."""
        result = self.run_netprof(*args, deadline_s=30)
        self.assertEqual(result.returncode, status, result.stdout + result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, result.stderr)
        for word in words:
            self.assertIn(word, lines[0])

    def interrupt(self, process):
        process.send_signal(signal.SIGINT)

    # Assertions a user would make of any successful report.
    def assert_latency_ordered(self, latency):
        self.assertGreater(latency["count"], 0)
        self.assertLessEqual(latency["min"], latency["p50"])
        self.assertLessEqual(latency["p50"], latency["p90"])
        self.assertLessEqual(latency["p90"], latency["p99"])
        self.assertLessEqual(latency["p99"], latency["p99_9"])
        self.assertLessEqual(latency["p99_9"], latency["p99_99"])
        self.assertLessEqual(latency["p99_99"], latency["max"])

    def assert_ping_pong_passed(self, result, transport, echoes):
        """A ping-pong local pair on `transport`: exit 0, `echoes` echoes, latencies in order, and
        its one subscriber got every message. Returns the report for the transport's own checks."""
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = result.json
        self.assertEqual(report["endpoint"]["transport"], transport)
        publisher = report["publisher"]
        self.assertEqual(publisher["echoes_received"], echoes)
        self.assert_latency_ordered(publisher["latency"]["rtt_ns"])
        [subscriber] = report["subscribers"]
        self.assertEqual(subscriber["received"], publisher["messages_sent"])
        self.assertEqual(subscriber["lost"], 0)
        return report

    def assert_each_subscriber_got_everything(self, pub, subs):
        """A publisher and its subscribers, finished: all exited 0 and each subscriber received
        every message sent (the publisher's report has one summary per subscriber process)."""
        said = "".join(f"\n--- subscriber: exit {s.returncode}\n{s.stderr}" for s in subs)
        self.assertEqual(pub.returncode, 0, pub.stdout + pub.stderr + said)
        sent = pub.json["publisher"]["messages_sent"]
        self.assertEqual(len(pub.json["subscribers"]), len(subs))
        for summary in pub.json["subscribers"]:
            self.assertEqual(summary["received"], sent, summary)
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stderr)

    def assert_two_publishers_lose_nothing(self, *args, deadline_s=DEFAULT_DEADLINE_S):
        """--local-pair ARGS --publishers 2 --subscribers 2 (ARGS: the transport's, and a rate it
        carries without loss): each publisher's stream reaches both subscribers whole. Returns
        the result."""
        result = self.run_netprof("--local-pair", *args, "--publishers", "2", "--subscribers",
                                  "2", json_name="two-publishers", deadline_s=deadline_s)
        self.assert_two_publishers_whole(result)
        return result

    def assert_two_publishers_whole(self, result):
        """A local group of publishers 0 and 1 and subscribers 2 and 3, finished: it passed, and
        each publisher's stream reached both subscribers whole."""
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        publishers = result.json["publishers"]
        self.assertEqual([p["id"] for p in publishers], [0, 1])
        for publisher in publishers:
            sent = publisher["publisher"]["messages_sent"]
            self.assertGreater(sent, 0)
            self.assertEqual([(s["id"], s["unique"], s["lost"]) for s in publisher["subscribers"]],
                             [(2, sent, 0), (3, sent, 0)])
        # Publisher 0's stream heard no other run: publisher 1's has a medium of its own.
        self.assertEqual(result.json["foreign_run_messages"], 0)

    def assert_dealt_whole(self, report, said):
        """--fanout round-robin dealt by the transport (NNG's push0, ZeroMQ's PUSH): every
        message the publisher sent reached exactly one subscriber, and each got some. Returns
        each subscriber's share."""
        publisher = report["publisher"]
        sent = publisher["messages_sent"]
        self.assertTrue(publisher["dealt_by_transport"], said)
        self.assertEqual(publisher["dealt_loss"],
                         {"sent": sent, "received": sent, "lost": 0, "loss_percent": 0.0}, said)
        shares = [summary["unique"] for summary in report["subscribers"]]
        self.assertEqual(sum(shares), sent, said)
        for summary in report["subscribers"]:
            # Each is charged with what reached it: its own loss is 0 by definition.
            self.assertEqual(summary["messages_owed"], summary["unique"], summary)
            self.assertEqual(summary["duplicates"], 0, summary)
            self.assertGreater(summary["unique"], 0, f"the transport dealt nothing to one: {shares}")
        return shares

    def assert_dealt_run_passed(self, pub, subs, sent):
        """A round-robin run the transport dealt, finished by hand (publisher `pub`,
        subscribers `subs`): every process passed, `sent` messages went out and together the
        subscribers received each once; each subscriber left the loss to the publisher."""
        said = pub.stdout + pub.stderr + "".join(s.stdout + s.stderr for s in subs)
        self.assertEqual(pub.returncode, 0, said)
        self.assertEqual(pub.json["publisher"]["messages_sent"], sent)
        self.assert_dealt_whole(pub.json, said)
        self.assertIn("dealt by the transport", pub.stdout)
        self.assertIn(f"All subscribers together: {sent:,} of {sent:,} received, 0 lost",
                      pub.stdout)
        for sub in subs:
            self.assertEqual(sub.returncode, 0, sub.stdout + sub.stderr)
            # Its gaps are the others' messages: neither gaps nor loss in its own report.
            self.assertEqual(sub.json["subscriber"]["gaps"], 0)
            self.assertIn("Lost: counted by the publisher", sub.stdout)

    def kill_one_of_three_dealt_to(self, subscriber_args, publisher_args,
                                   deadline_s=DEFAULT_DEADLINE_S):
        """Subscribers 1 to 3 (each started with `subscriber_args`) and a publisher dealing to
        them round-robin at 3,000 msg/s for 3 s (`publisher_args`: its transport's); subscriber
        2 is killed a second into the measured phase. Checks that the survivors pass, and that
        the publisher fails naming subscriber 2 as vanished and accounts for every message it
        dealt; returns the publisher's dealt_loss."""
        started = [self.start("-i", str(i), *subscriber_args, "--wait", "20",
                              json_name=f"sub{i}")
                   for i in (1, 2, 3)]
        publisher, pub_json = self.start("-i", "0", *publisher_args, "--subscribers", "3",
                                         "--fanout", "round-robin", "--send-hz", "3000", "-t",
                                         "3", "--wait", "20", json_name="pub")
        victim = started[1][0]
        time.sleep(2.0)  # the warm-up (0.5 s) and a second of the measured phase
        victim.send_signal(signal.SIGKILL)
        pub = self.finish(publisher, pub_json, deadline_s)
        for process, path in (started[0], started[2]):
            survivor = self.finish(process, path, deadline_s)
            self.assertEqual(survivor.returncode, 0, survivor.stdout + survivor.stderr)
        self.finish(victim)
        self.assertEqual(pub.returncode, 1, pub.stdout + pub.stderr)
        self.assertIn("subscriber 2", " ".join(pub.json["result"]["problems"]))
        loss = pub.json["publisher"]["dealt_loss"]
        self.assertEqual(loss["received"] + loss["lost"], loss["sent"])
        outcomes = {summary["id"]: summary["outcome"] for summary in pub.json["subscribers"]}
        self.assertEqual(outcomes, {1: "complete", 2: "vanished", 3: "complete"})
        return loss

    def run_beside_live_socket(self, path, *args, deadline_s=DEFAULT_DEADLINE_S):
        """Runs netprof with `args` while another process listens on the unix socket `path`:
        netprof must refuse (exit 3) naming ipc://path, and leave the file. Returns the result."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as live:
            live.bind(path)
            live.listen()
            result = self.run_netprof(*args, deadline_s=deadline_s)
            self.assertEqual(result.returncode, 3, result.stderr)
            self.assertIn(f"ipc://{path}", result.stderr)
            self.assertTrue(os.path.exists(path))
        return result
