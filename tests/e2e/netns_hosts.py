"""Hosts on a real link: network namespaces joined by veth pairs and a Linux bridge.

One namespace per host (the publisher is host 0, subscribers 1..N) and one more acting as the
switch, which holds the bridge. Each host's only link is `eth0`, a veth whose other end is a
port of the bridge, so datagrams between hosts really cross two devices and a bridge, and a
qdisc (tc) on a host's `eth0` shapes what that host sends, as on a real wire. Nothing is
created in the root namespace, and no namespace has a route out of the bridge's subnet.

Names carry this process's PID, so parallel runs never collide; namespaces left behind by a
run that was killed (its PID no longer alive) are swept away by the next one. Every process is
started with `ip netns exec NS netprof ...` (which execs netprof in place, so the tracked PID is
netprof's own) and is killed, by PID, before the namespaces are deleted. Standard library only.
"""

import atexit
import itertools
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "lib"))
from netprof_processes import Processes  # noqa: E402

NETPROF = os.environ.get("NETPROF_BIN", "netprof")
PREFIX = "nph-"                 # every namespace this helper makes starts with it
MULTICAST_RANGE = "224.0.0.0/4"
COMMAND_TIMEOUT_S = 10
LINK_UP_DEADLINE_S = 10

_serial = itertools.count()
_live = []                      # Hosts not yet torn down, for the exit handler


class SetupError(Exception):
    """The topology could not be built (no root, no `ip netns`, ...): the reason, for a skip."""


def run(argv, check=True):
    """Runs one command under a deadline; with check, a failure raises SetupError."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError as error:
        raise SetupError(f"{argv[0]} not found: {error}") from None
    except subprocess.TimeoutExpired:
        raise SetupError(f"{' '.join(argv)} did not finish within {COMMAND_TIMEOUT_S} s") from None
    if check and done.returncode != 0:
        raise SetupError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_namespaces():
    """Deletes namespaces of this helper whose creating process is gone (a run killed before
    its cleanup could run, e.g. by SIGKILL). Others' live runs are left alone."""
    listed = run(["ip", "netns", "list"], check=False)
    for line in listed.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(PREFIX):
            continue
        owner = name[len(PREFIX):].split("-", 1)[0]
        if owner.isdigit() and not _pid_alive(int(owner)):
            # Its netprof processes, if still running, were started by that run: end them,
            # by PID, before their namespace goes.
            for pid in run(["ip", "netns", "pids", name], check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            run(["ip", "netns", "delete", name], check=False)


class Host:
    def __init__(self, index, namespace, address):
        self.index = index          # 0: the publisher's host
        self.namespace = namespace
        self.address = address      # "10.a.b.c", on eth0
        self.interface = "eth0"


class Hosts:
    """A publisher host and `subscribers` subscriber hosts on one bridged /24.

    Use as a context manager, or call create() and register cleanup() at once (it is safe to
    call on a half-built topology, and more than once)."""

    def __init__(self, subscribers=3, subnet=None, multicast_route=True):
        if not 1 <= subscribers <= 200:
            raise ValueError("1 to 200 subscriber hosts")
        self.tag = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        # The namespaces have no route anywhere else, so any /24 would do; this one is private
        # and varies with the PID so that two runs' traffic is never alike in a capture.
        self.subnet = subnet or f"10.{200 + os.getpid() % 50}.{os.getpid() % 250}"
        self.switch = f"{self.tag}-sw"
        self.hosts = [Host(i, f"{self.tag}-h{i}", f"{self.subnet}.{i + 1}")
                      for i in range(subscribers + 1)]
        self.broadcast = f"{self.subnet}.255"
        self.prefix_length = 24
        # 224.0.0.0/4 via eth0 on every host, so that a multicast join without --mc-interface
        # finds its interface; without it only --mc-interface can say where to join.
        self.multicast_route = multicast_route
        self._namespaces = []       # created so far, deleted in cleanup
        self._processes = Processes()
        self._torn_down = False

    @property
    def publisher(self):
        return self.hosts[0]

    @property
    def subscribers(self):
        return self.hosts[1:]

    # --- building ---------------------------------------------------------------------------

    def create(self):
        """Builds the topology; raises SetupError with the reason when it cannot."""
        if os.geteuid() != 0:
            raise SetupError("needs root to create network namespaces (ip netns add)")
        _live.append(self)
        sweep_stale_namespaces()
        for namespace in [self.switch] + [host.namespace for host in self.hosts]:
            run(["ip", "netns", "add", namespace])
            self._namespaces.append(namespace)
            run(["ip", "-n", namespace, "link", "set", "lo", "up"])
        # A switch that floods multicast to every port (no IGMP snooping: no querier here, and
        # the tests are about netprof, not about a bridge learning group members) and forwards
        # at once (no STP, so no listening/learning delay).
        run(["ip", "-n", self.switch, "link", "add", "br0", "type", "bridge",
             "stp_state", "0", "forward_delay", "0", "mcast_snooping", "0"])
        run(["ip", "-n", self.switch, "link", "set", "br0", "up"])
        for host in self.hosts:
            port = f"p{host.index}"
            # Both ends are created inside namespaces: nothing appears in the root namespace.
            run(["ip", "-n", self.switch, "link", "add", port, "type", "veth",
                 "peer", "name", host.interface, "netns", host.namespace])
            run(["ip", "-n", self.switch, "link", "set", port, "master", "br0"])
            run(["ip", "-n", self.switch, "link", "set", port, "up"])
            # No IPv6: its router solicitations and MLD reports would be extra traffic on a
            # link whose bytes the ground-truth test counts.
            run(["ip", "netns", "exec", host.namespace, "sysctl", "-q", "-w",
                 f"net.ipv6.conf.{host.interface}.disable_ipv6=1"], check=False)
            run(["ip", "-n", host.namespace, "addr", "add",
                 f"{host.address}/{self.prefix_length}", "brd", "+", "dev", host.interface])
            run(["ip", "-n", host.namespace, "link", "set", host.interface, "up"])
            if self.multicast_route:
                run(["ip", "-n", host.namespace, "route", "add", MULTICAST_RANGE,
                     "dev", host.interface])
        self._wait_until_forwarding()
        return self

    def _wait_until_forwarding(self):
        """Polls until every host's link has carrier and every bridge port forwards."""
        deadline = time.monotonic() + LINK_UP_DEADLINE_S
        while True:
            carrier = all("LOWER_UP" in run(["ip", "-n", host.namespace, "link", "show",
                                             host.interface]).stdout for host in self.hosts)
            ports = json.loads(run(["ip", "-n", self.switch, "-j", "-d", "link", "show",
                                    "master", "br0"]).stdout or "[]")
            states = [port.get("linkinfo", {}).get("info_slave_data", {}).get("state")
                      for port in ports]
            if carrier and states.count("forwarding") == len(self.hosts):
                return
            if time.monotonic() >= deadline:
                raise SetupError(f"links not up within {LINK_UP_DEADLINE_S} s: carrier on "
                                 f"every host: {carrier}, bridge ports: {states}")
            time.sleep(0.02)

    # --- shaping ----------------------------------------------------------------------------

    def shape(self, host, rate, burst, latency):
        """A token bucket on `host`'s egress: everything it sends is held to `rate`
        (tc units: '20mbit' is 20,000,000 bit/s). tbf counts each packet's length as the
        device sees it: Ethernet header (14 B) + IP + UDP + payload, no preamble or FCS."""
        run(["tc", "-n", host.namespace, "qdisc", "replace", "dev", host.interface, "root",
             "tbf", "rate", rate, "burst", burst, "latency", latency])

    def link_counters(self, host):
        """The host's eth0 counters as the kernel keeps them: {"rx": {...}, "tx": {...}} with
        "packets", "bytes", "dropped", ... (from `ip -j -s link`)."""
        shown = run(["ip", "-n", host.namespace, "-j", "-s", "link", "show", "dev",
                     host.interface]).stdout
        return json.loads(shown)[0]["stats64"]

    def qdisc_stats(self, host):
        """`tc -s qdisc show` for the host's link: what the shaper sent and dropped."""
        return run(["tc", "-n", host.namespace, "-s", "qdisc", "show", "dev",
                    host.interface]).stdout

    # --- processes --------------------------------------------------------------------------

    def start(self, host, *args, json_path=None):
        """Starts netprof on `host`; returns its Popen, tracked until cleanup."""
        argv = ["ip", "netns", "exec", host.namespace, NETPROF, *args]
        if json_path:
            argv += ["--json", json_path]
        return self._processes.start(argv)

    # --- teardown ---------------------------------------------------------------------------

    def cleanup(self):
        """Kills what this topology started (by PID), then deletes its namespaces, which
        destroys their veths and the bridge with them."""
        if self._torn_down:
            return
        self._torn_down = True
        self._processes.kill_all()
        for namespace in reversed(self._namespaces):
            run(["ip", "netns", "delete", namespace], check=False)
        if self in _live:
            _live.remove(self)

    def __enter__(self):
        try:
            return self.create()
        except BaseException:
            self.cleanup()
            raise

    def __exit__(self, *exc):
        self.cleanup()
        return False


def _teardown_all():
    for hosts in list(_live):
        hosts.cleanup()


atexit.register(_teardown_all)


def _terminated(signum, _frame):
    # A test runner that times out sends SIGTERM: leave through the exit handlers, so the
    # namespaces go with us. (After SIGKILL, the next run's sweep removes them.)
    sys.exit(128 + signum)


if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
    signal.signal(signal.SIGTERM, _terminated)
