"""End-to-end: misuse of the command line, transport by transport, through the real binary.

Every refusal must be: the documented exit status, nothing on stdout, exactly one line on
stderr naming the problem (so no stack trace, no "terminate called"), no --json file left
behind, and all of it within a few seconds. The parser's wording is pinned by the unit tests
(tests/unit/cli/, tests/contract/); this file pins what a user sees of the process, for the
misuse those do not run through a process. docs/hostile-input.md lists every case and its test.

Nothing here sends a datagram: each command line is refused before a socket is opened, or
fails on a port or name the test itself holds.
"""

import os
import re
import socket
import subprocess
import time
import unittest

from netprof_test_case import NETPROF, NetprofTestCase, free_udp_port

# A refusal happens while parsing or opening, in milliseconds; this allows for a loaded CI box.
REFUSAL_DEADLINE_S = 5


def lit(text):
    """A message expected word for word."""
    return re.escape(text)


# (arguments, exit status, the one stderr line after "netprof: " as a regex), per transport.
# Every row gets "--wait 1 --json FILE" in front, so a row that is wrongly accepted fails in
# about a second instead of waiting ten, and so that no JSON file may appear.
USAGE = 2
RUNTIME = 3
ROWS = [
    # -- unknown option, with each transport's own option given
    (["-m", "239.255.0.1:4150", "--bogus"], USAGE, lit("unknown option '--bogus' (see --help)")),
    (["-b", "127.255.255.255:4150", "--bogus"], USAGE, lit("unknown option '--bogus' (see --help)")),
    (["--zmq", "tcp://127.0.0.1:5555", "--bogus"], USAGE, lit("unknown option '--bogus' (see --help)")),
    (["--shm", "h", "--bogus"], USAGE, lit("unknown option '--bogus' (see --help)")),
    (["--shm", "h", "-Z"], USAGE, lit("unknown option '-Z' (see --help)")),
    # -- an option's value missing (the option last on the line)
    (["-u"], USAGE, lit("option '--udp' needs a value")),
    (["-m"], USAGE, lit("option '--multicast' needs a value")),
    (["-b"], USAGE, lit("option '--broadcast' needs a value")),
    # Bare, it asks the local pair to pick loopback endpoints; a lone process needs its own.
    (["--zmq"], USAGE, lit("ZeroMQ needs this process's own endpoint: --zmq tcp://host:port or "
                           "--zmq ipc://path (a subscriber then adds the publisher's)")),
    (["--shm", "h", "--shm-history"], USAGE, lit("option '--shm-history' needs a value")),
    (["-m", "239.255.0.1:4150", "--mc-ttl"], USAGE, lit("option '--mc-ttl' needs a value")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads"], USAGE,
     lit("option '--zmq-io-threads' needs a value")),
    (["-u", "127.0.0.1:1", "--fragment-size"], USAGE, lit("option '--fragment-size' needs a value")),
    (["-u", "127.0.0.1:1", "--count"], USAGE, lit("option '--count' needs a value")),
    (["-u", "127.0.0.1:1", "--send-hz", "--count", "5"], USAGE,
     lit("option '--send-hz' needs a value")),
    # -- not a number
    (["-u", "127.0.0.1:1", "-t", "abc"], USAGE,
     lit("invalid value 'abc' for --time: expected seconds from 0.001 to 86400")),
    (["-u", "127.0.0.1:1", "--send-hz", "fast"], USAGE,
     lit("invalid value 'fast' for --send-hz: expected a rate in Hz from 0 to 1e9 "
         "(0 = as fast as possible)")),
    (["-u", "127.0.0.1:1", "-q", "1MB"], USAGE,
     lit("invalid value '1MB' for --queue-length: expected a size in bytes >= 0"
         " (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    (["-u", "127.0.0.1:1", "--subscribers", "two"], USAGE,
     lit("invalid value 'two' for --subscribers: expected a whole number from 0 to 1024")),
    (["-m", "239.255.0.1:4150", "--mc-ttl", "abc"], USAGE,
     lit("invalid value 'abc' for --mc-ttl: expected a whole number from 0 to 255")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", "two"], USAGE,
     lit("invalid value 'two' for --zmq-io-threads: expected a whole number from 1 to 64")),
    (["-b", "127.255.255.255:4150", "--reassembly-timeout", "soon"], USAGE,
     lit("invalid value 'soon' for --reassembly-timeout: expected seconds > 0, at most 3600")),
    # -- negative
    (["-u", "127.0.0.1:1", "--send-hz", "-1"], USAGE,
     lit("invalid value '-1' for --send-hz: expected a rate in Hz from 0 to 1e9 "
         "(0 = as fast as possible)")),
    (["-u", "127.0.0.1:1", "--count", "-1"], USAGE,
     lit("invalid value '-1' for --count: expected a whole number >= 1")),
    (["-u", "127.0.0.1:1", "-q", "-1"], USAGE,
     lit("invalid value '-1' for --queue-length: expected a size in bytes >= 0"
         " (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    (["-u", "127.0.0.1:1", "-i", "-1"], USAGE,
     lit("invalid value '-1' for --id: expected a whole number from 0 to 65535")),
    (["-m", "239.255.0.1:4150", "--mc-ttl", "-1"], USAGE,
     lit("invalid value '-1' for --mc-ttl: expected a whole number from 0 to 255")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", "-1"], USAGE,
     lit("invalid value '-1' for --zmq-io-threads: expected a whole number from 1 to 64")),
    # -- zero where zero means nothing
    (["-u", "127.0.0.1:1", "--count", "0"], USAGE,
     lit("invalid value '0' for --count: expected a whole number >= 1")),
    (["-u", "127.0.0.1:1", "--probe-timeout", "0"], USAGE,
     lit("invalid value '0' for --probe-timeout: expected seconds from 0.001 to 86400")),
    (["-u", "127.0.0.1:1", "--reassembly-slots", "0"], USAGE,
     lit("invalid value '0' for --reassembly-slots: expected a whole number from 1 to 64")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", "0"], USAGE,
     lit("invalid value '0' for --zmq-io-threads: expected a whole number from 1 to 64")),
    # -- too large
    (["-u", "127.0.0.1:1", "-t", "1e300"], USAGE,
     lit("invalid value '1e300' for --time: expected seconds from 0.001 to 86400")),
    (["-u", "127.0.0.1:1", "--count", "18446744073709551616"], USAGE,
     lit("invalid value '18446744073709551616' for --count: too large "
         "(at most 18446744073709551615)")),
    (["-u", "127.0.0.1:1", "-q", "18446744073709551616"], USAGE,
     lit("invalid value '18446744073709551616' for --queue-length: too large "
         "(at most 18446744073709551615)")),
    (["-u", "127.0.0.1:1", "--num-vars", "65536"], USAGE,
     lit("invalid value '65536' for --num-vars: too large (at most 65535)")),
    (["-u", "127.0.0.1:1", "--num-vars", "65535"], USAGE,
     lit("--num-vars 65535 needs a payload of at least 971915 B; -s is 128")),
    (["-u", "127.0.0.1:1", "-i", "4294967296"], USAGE,
     lit("invalid value '4294967296' for --id: too large (at most 65535)")),
    (["-m", "239.255.0.1:4150", "--mc-ttl", "256"], USAGE,
     lit("invalid value '256' for --mc-ttl: expected a whole number from 0 to 255")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", "65"], USAGE,
     lit("invalid value '65' for --zmq-io-threads: expected a whole number from 1 to 64")),
    (["-u", "127.0.0.1:1", "--udp-batch", "1025"], USAGE,
     lit("invalid value '1025' for --udp-batch: expected a whole number from 1 to 1024")),
    (["--shm", "h", "-q", "99999999999"], USAGE,
     lit("-q 99999999999 is too large for shm: the ring holds at most 1073741824 B (1 GiB)")),
    # -- a fraction where a whole number is needed
    (["-u", "127.0.0.1:1", "-s", "1.5"], USAGE,
     lit("invalid value '1.5' for --size: expected a size in bytes >= 1"
         " (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    (["-u", "127.0.0.1:1", "-s", "1e3"], USAGE,
     lit("invalid value '1e3' for --size: expected a size in bytes >= 1"
         " (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    (["-u", "127.0.0.1:1", "-q", "1.5"], USAGE,
     lit("invalid value '1.5' for --queue-length: expected a size in bytes >= 0"
         " (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    (["-u", "127.0.0.1:1", "-i", "1.5"], USAGE,
     lit("invalid value '1.5' for --id: expected a whole number from 0 to 65535")),
    (["-u", "127.0.0.1:1", "--subscribers", "1.5"], USAGE,
     lit("invalid value '1.5' for --subscribers: expected a whole number from 0 to 1024")),
    (["-u", "127.0.0.1:1", "--warmup-count", "1.5"], USAGE,
     lit("invalid value '1.5' for --warmup-count: expected a whole number >= 0")),
    (["-m", "239.255.0.1:4150", "--mc-ttl", "1.5"], USAGE,
     lit("invalid value '1.5' for --mc-ttl: expected a whole number from 0 to 255")),
    (["--zmq", "tcp://127.0.0.1:5555", "--zmq-io-threads", "1.5"], USAGE,
     lit("invalid value '1.5' for --zmq-io-threads: expected a whole number from 1 to 64")),
    (["-u", "127.0.0.1:1", "--fragment-size", "1000.5"], USAGE,
     lit("invalid value '1000.5' for --fragment-size: expected a size in bytes from 512 to "
         "65479 (K, M, G = 1024, 1024^2, 1024^3 bytes)")),
    # -- two transports, or one transport's option with another transport
    (["-u", "127.0.0.1:1", "--zmq", "tcp://127.0.0.1:5555"], USAGE,
     lit("conflicting transports: udp and zmq; give only one")),
    (["-m", "239.255.0.1:4150", "-b", "127.255.255.255:4150"], USAGE,
     lit("conflicting transports: multicast and broadcast; give only one")),
    (["-u", "127.0.0.1:1", "--shm", "h"], USAGE,
     lit("conflicting transports: udp and shm; give only one")),
    (["--zmq", "tcp://127.0.0.1:5555", "--shm", "h"], USAGE,
     lit("conflicting transports: zmq and shm; give only one")),
    (["--mc-ttl", "3", "--zmq-nodrop"], USAGE,
     lit("conflicting transports: multicast and zmq; give only one")),
    (["-u", "127.0.0.1:1", "--mc-ttl", "3"], USAGE,
     lit("--mc-ttl does not apply to the udp transport (it is an option of multicast)")),
    (["-b", "127.255.255.255:4150", "--mc-loopback", "off"], USAGE,
     lit("--mc-loopback does not apply to the broadcast transport (it is an option of multicast)")),
    (["-b", "127.255.255.255:4150", "--mc-ttl", "3"], USAGE,
     lit("--mc-ttl does not apply to the broadcast transport (it is an option of multicast)")),
    (["-u", "127.0.0.1:1", "--zmq-nodrop"], USAGE,
     lit("--zmq-nodrop does not apply to the udp transport (it is an option of zmq)")),
    (["-u", "127.0.0.1:1", "--zmq-io-threads", "2"], USAGE,
     lit("--zmq-io-threads does not apply to the udp transport (it is an option of zmq)")),
    (["--zmq", "tcp://127.0.0.1:5555", "--shm-history", "keep-all"], USAGE,
     lit("--shm-history does not apply to the zmq transport (it is an option of shm)")),
    (["-m", "239.255.0.1:4150", "--shm-history", "keep-all"], USAGE,
     lit("--shm-history does not apply to the multicast transport (it is an option of shm)")),
    (["--shm", "h", "--udp-gso", "off"], USAGE,
     lit("--udp-gso does not apply to the shm transport (it is an option of udp, multicast "
         "and broadcast)")),
    (["--local-pair", "--shm", "--reassembly-slots", "2"], USAGE,
     lit("--reassembly-slots does not apply to the shm transport (it is an option of udp, "
         "multicast and broadcast)")),
    (["--local-pair", "--zmq", "ipc://*", "--mc-ttl", "0"], USAGE,
     lit("--mc-ttl does not apply to the zmq transport (it is an option of multicast)")),
    (["--shm-history", "keep-all"], USAGE,
     lit("--shm needs a NAME (only --local-pair picks one itself)")),
    (["--zmq-io-threads", "2"], USAGE,
     lit("ZeroMQ needs this process's own endpoint: --zmq tcp://host:port or --zmq ipc://path "
         "(a subscriber then adds the publisher's)")),
    (["-m", "239.255.0.1:4150", "-m", "239.255.0.2:4150"], USAGE,
     lit("option '--multicast' given more than once")),
    (["--shm", "a", "--shm", "b"], USAGE, lit("option '--shm' given more than once")),
    # -- bad addresses
    (["-u", ":40000"], USAGE,
     lit("bad -u value ':40000': expected host:port, the host is missing (0.0.0.0 means any)")),
    (["-u", "127.0.0.1:65536"], USAGE,
     lit("bad -u value '127.0.0.1:65536': the port 65536 is not in 0..65535")),
    (["-u", "no-such-host.invalid:40000"], USAGE,
     lit("bad -u value 'no-such-host.invalid:40000': cannot resolve 'no-such-host.invalid' to "
         "an IPv4 address: ") + ".+"),
    (["-i", "1", "-u", "127.0.0.1:40001", "-u", "127.0.0.1:0"], USAGE,
     lit("bad -u value '127.0.0.1:0': a peer needs a port other than 0")),
    (["-i", "1", "-u", "127.0.0.1:0"], USAGE,
     lit("bad -u value '127.0.0.1:0': a subscriber given only its own address waits for its "
         "publisher (started with -u this address) to contact it, so it needs a port other "
         "than 0; or give the publisher's address too")),
    (["-m", "10.1.2.3:4150"], USAGE,
     lit("bad -m value '10.1.2.3:4150': 10.1.2.3 is not a multicast group "
         "(224.0.0.0 to 239.255.255.255)")),
    (["-m", "239.255.0.1:0"], USAGE,
     lit("bad -m value '239.255.0.1:0': the group needs a port other than 0 "
         "(every process binds the same one)")),
    (["-m", "239.255.0.1:65536"], USAGE,
     lit("bad -m value '239.255.0.1:65536': the port 65536 is not in 0..65535")),
    (["-m", "no-such-host.invalid:4150"], USAGE,
     lit("bad -m value 'no-such-host.invalid:4150': cannot resolve 'no-such-host.invalid' to "
         "an IPv4 address: ") + ".+"),
    (["-m", "239.255.0.1:4150", "--mc-interface", "no-such-interface0"], USAGE,
     lit("bad --mc-interface value 'no-such-interface0': no interface has this address or name "
         "(these do: ") + ".+"),
    (["-b", "127.255.255.255:0"], USAGE,
     lit("bad -b value '127.255.255.255:0': a port other than 0 is needed "
         "(every process binds the same one)")),
    (["-b", "127.255.255.255"], USAGE, lit("bad -b value '127.255.255.255': expected host:port")),
    (["-b", "10.254.253.255:4150"], USAGE,
     lit("bad -b value '10.254.253.255:4150': no interface has the broadcast address "
         "10.254.253.255 (these do: ") + ".+"),
    (["-i", "1", "--zmq", "tcp://127.0.0.1:5556", "--zmq", "tcp://no-such-host.invalid:5555"],
     USAGE,
     lit("bad --zmq value 'tcp://no-such-host.invalid:5555': cannot resolve "
         "'no-such-host.invalid' to an IPv4 address")),
    (["-i", "1", "--zmq", "tcp://127.0.0.1:5556", "--zmq", "tcp://127.0.0.1:0"], USAGE,
     lit("bad --zmq value 'tcp://127.0.0.1:0': a peer to connect to needs a real port, not 0")),
    (["-i", "1", "--zmq", "tcp://127.0.0.1:5556", "--zmq", "tcp://127.0.0.1:5556"], USAGE,
     lit("bad --zmq value 'tcp://127.0.0.1:5556': that is this process's own endpoint "
         "(the first --zmq); give the peer's")),
    (["--zmq", "ipc://"], USAGE, lit("bad --zmq value 'ipc://': expected ipc://path, the path is missing")),
    # -- a publisher's own port or path left to the system: no subscriber could find it
    (["-u", "0.0.0.0:0", "-u", "127.0.0.1:40001"], USAGE,
     lit("bad -u value '0.0.0.0:0': a publisher needs a port other than 0, since its "
         "subscribers send to it (only a subscriber's own port may be 0)")),
    (["--zmq", "tcp://*:*"], USAGE,
     lit("bad --zmq value 'tcp://*:*': a publisher needs a port other than 0 or *, since its "
         "subscribers connect to it (only --local-pair picks one itself)")),
    (["--zmq", "ipc://*"], USAGE,
     lit("bad --zmq value 'ipc://*': a publisher needs a definite path, since its subscribers "
         "connect to it (only --local-pair picks one itself)")),
    # -- shared-memory names
    (["--shm"], USAGE, lit("--shm needs a NAME (only --local-pair picks one itself)")),
    (["--shm", "../etc"], USAGE,
     lit("bad --shm value '../etc': expected a name of 1 to 200 letters, digits, '.', '_' or '-' "
         "(not starting with '.'); the segment is /dev/shm/netprof-NAME")),
    (["--shm", "a/b"], USAGE, lit("bad --shm value 'a/b': expected a name of 1 to 200 ") + ".+"),
    (["--shm", ".hidden"], USAGE, lit("bad --shm value '.hidden': expected a name of 1 to 200 ") + ".+"),
    (["--shm", "x" * 201], USAGE, lit(f"bad --shm value '{'x' * 201}': expected a name ") + ".+"),
    (["--shm", "bad/name", "--local-pair"], USAGE,
     lit("bad --shm value 'bad/name': expected a name of 1 to 200 ") + ".+"),
    # -- the local pair
    (["--local-pair", "-i", "2"], USAGE,
     lit("--local-pair runs both the publisher and the subscriber: drop -i 2")),
    (["--local-pair", "-u", "127.0.0.1:40000"], USAGE,
     lit("the local pair takes no -u (it picks two free loopback ports) or exactly two: "
         "-u publisher_host:port -u subscriber_host:port")),
    (["--local-pair", "-m", "10.0.0.1:4150"], USAGE,
     lit("bad -m value '10.0.0.1:4150': 10.0.0.1 is not a multicast group "
         "(224.0.0.0 to 239.255.255.255)")),
    # -- arguments that are no options
    (["-u", "127.0.0.1:1", "--", "stray"], USAGE, lit("unexpected argument 'stray'")),
    (["-u", "127.0.0.1:1", ""], USAGE, lit("unexpected argument ''")),
]


class HostileCommandLineTest(NetprofTestCase):
    def refuse(self, args, status, line, json_path=None):
        """Runs netprof and asserts the refusal; returns the stderr line."""
        json_given = json_path is not None
        if not json_given:
            json_path = self.json_path("refused")
        argv = [NETPROF] + ([] if json_given else ["--wait", "1", "--json", json_path]) + args
        started = time.monotonic()
        try:
            result = subprocess.run(argv, capture_output=True, text=True,
                                    timeout=REFUSAL_DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.fail(f"not refused within {REFUSAL_DEADLINE_S} s: {argv}")
        elapsed = time.monotonic() - started
        self.assertEqual(result.returncode, status, f"{argv}: {result.stderr}{result.stdout}")
        self.assertEqual(result.stdout, "", argv)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"{argv}: {result.stderr!r}")
        self.assertTrue(result.stderr.endswith("\n"), repr(result.stderr))
        self.assertRegex(lines[0], "^netprof: " + line + "$")
        if not json_given:
            self.assertFalse(os.path.exists(json_path), f"{argv} left {json_path}")
        self.assertLess(elapsed, REFUSAL_DEADLINE_S, argv)
        return lines[0]

    def test_every_row_is_refused_in_one_line(self):
        for args, status, line in ROWS:
            with self.subTest(args=args):
                self.refuse(args, status, line)

    # ---- --json paths: refused before anything runs (parse time since issue #7) ----

    def test_json_name_too_long_for_the_system(self):
        path = os.path.join(self._tmp.name, "x" * 300 + ".json")
        self.refuse(["-u", "127.0.0.1:1", "--json", path], USAGE,
                    lit(f"invalid value '{path}' for --json: File name too long"), json_path=path)

    def test_json_path_under_a_plain_file(self):
        plain = os.path.join(self._tmp.name, "plain")
        with open(plain, "w") as f:
            f.write("x")
        path = os.path.join(plain, "r.json")
        self.refuse(["-u", "127.0.0.1:1", "--json", path], USAGE,
                    lit(f"invalid value '{path}' for --json: '{plain}' is not a directory"),
                    json_path=path)

    @unittest.skipUnless(os.path.isdir("/sys/kernel"), "needs sysfs")
    def test_json_where_no_file_can_be_created(self):
        # sysfs refuses new files even to root, so this holds in CI containers.
        self.refuse(["-u", "127.0.0.1:1", "--json", "/sys/kernel/r.json"], USAGE,
                    lit("invalid value '/sys/kernel/r.json' for --json: cannot write it "
                        "(Permission denied)"), json_path="/sys/kernel/r.json")

    def test_json_fifo_nobody_reads_is_refused_not_waited_on(self):
        fifo = os.path.join(self._tmp.name, "fifo")
        os.mkfifo(fifo)
        self.refuse(["-u", "127.0.0.1:1", "--json", fifo], USAGE,
                    lit(f"invalid value '{fifo}' for --json: cannot write it "
                        "(No such device or address)"), json_path=fifo)

    @unittest.skipUnless(os.path.isdir("/sys/kernel"), "needs sysfs")
    def test_local_pair_with_an_unwritable_json_fails_before_starting_its_processes(self):
        # It used to start both processes and wait out the subscriber's --wait (10 s).
        self.refuse(["--local-pair", "-t", "0.5", "--json", "/sys/kernel/r.json"], USAGE,
                    lit("invalid value '/sys/kernel/r.json' for --json: cannot write it "
                        "(Permission denied)"), json_path="/sys/kernel/r.json")

    # ---- refused by the system when opening: exit 3, still one line ----

    @unittest.skipUnless(os.path.isdir("/sys/kernel"), "needs sysfs")
    def test_zmq_ipc_path_where_no_socket_can_be_made(self):
        self.refuse(["-i", "0", "--zmq", "ipc:///sys/kernel/netprof.ipc"], RUNTIME,
                    lit("cannot bind ZeroMQ ipc:///sys/kernel/netprof.ipc: ") + ".+")

    def test_shm_name_held_by_a_live_publisher(self):
        name = f"hostile-{os.getpid()}"
        segment = f"/dev/shm/netprof-{name}"
        # Cleanups run last first: the holder is killed (it cannot unlink what it made), then
        # its segment is removed.
        self.addCleanup(lambda: os.path.exists(segment) and os.unlink(segment))
        holder = subprocess.Popen([NETPROF, "-i", "0", "--shm", name, "--wait", "20"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(holder.wait, 10)
        self.addCleanup(holder.kill)
        deadline = time.monotonic() + 10
        while not os.path.exists(segment) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(segment), "the holding publisher never made its segment")
        self.refuse(["-i", "0", "--shm", name], RUNTIME,
                    lit(f"shared-memory segment {name} ({segment}) is in use by PID {holder.pid}"))

    def test_udp_port_in_use_for_each_udp_role(self):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
            holder.bind(("127.0.0.1", 0))
            taken = f"127.0.0.1:{holder.getsockname()[1]}"
            self.refuse(["-i", "1", "-u", taken, "-u", f"127.0.0.1:{free_udp_port()}"], RUNTIME,
                        lit(f"cannot bind UDP {taken}: Address already in use") + ".*")

    # ---- an option another transport reads (was: silently ignored) ----

    def test_udp_option_given_with_shm_is_refused(self):
        # The UDP tuning options select no transport; with --shm or --zmq they used to be
        # ignored without a word and the run went ahead.
        self.refuse(["--shm", f"hostile-frag-{os.getpid()}", "--fragment-size", "1000"], USAGE,
                    lit("--fragment-size does not apply to the shm transport (it is an option "
                        "of udp, multicast and broadcast)"))

    def test_udp_option_given_with_zmq_is_refused(self):
        self.refuse(["--zmq", "tcp://127.0.0.1:0", "--udp-batch", "4"], USAGE,
                    lit("--udp-batch does not apply to the zmq transport (it is an option of "
                        "udp, multicast and broadcast)"))

    # ---- a publisher's own port 0 (was: bound where no subscriber could find it, exit 3
    # after --wait) ----

    def test_publisher_on_port_zero_is_refused(self):
        self.refuse(["-i", "0", "-u", "127.0.0.1:0"], USAGE,
                    lit("bad -u value '127.0.0.1:0': a publisher needs a port other than 0, "
                        "since its subscribers send to it (only a subscriber's own port may "
                        "be 0)"))

    def test_zmq_publisher_on_port_zero_is_refused(self):
        self.refuse(["-i", "0", "--zmq", "tcp://127.0.0.1:0"], USAGE,
                    lit("bad --zmq value 'tcp://127.0.0.1:0': a publisher needs a port other "
                        "than 0 or *, since its subscribers connect to it (only --local-pair "
                        "picks one itself)"))

    def test_local_pair_whose_publisher_cannot_bind_fails_fast(self):
        # The publisher child exits 3 at once; run_local_pair must then stop the subscriber
        # child rather than let it wait out --wait (it once did: 3 s here, 10 s by default).
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
            holder.bind(("127.0.0.1", 0))
            taken = f"127.0.0.1:{holder.getsockname()[1]}"
            argv = [NETPROF, "--local-pair", "-t", "0.5", "--wait", "3", "-u", taken, "-u",
                    f"127.0.0.1:{free_udp_port()}"]
            started = time.monotonic()
            result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            elapsed = time.monotonic() - started
        self.assertEqual(result.returncode, RUNTIME, result.stderr)
        self.assertRegex(result.stderr, "^netprof: cannot bind UDP " + re.escape(taken) +
                         ": Address already in use.*\n$")
        self.assertLess(elapsed, 1.5)

if __name__ == "__main__":
    unittest.main()
