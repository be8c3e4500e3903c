"""The lab's network: N hosts as network namespaces, each with one veth (`eth0`) into a Linux
bridge that lives in a namespace of its own (the switch), plus a control namespace on the same
bridge from which ssh reaches the hosts (scripts/lab/netns_relay.py). Addresses exist only
inside these namespaces and no namespace has a route anywhere else, so nothing the lab carries
can leave the machine: each host's only links are lo and eth0, its broadcast address is the
lab's /24's, and its multicast route (224.0.0.0/4) is eth0. Links are shaped with tc tbf (this
kernel has no netem): on the host's eth0 for what the host sends, on its bridge port for what it
receives.

Namespaces are made and deleted with netprof_services.NetworkNamespace, as the tools do.
The topology mirrors tests/e2e/netns_hosts.py. Standard library only.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from netprof_services import NetworkNamespace, SetupError  # noqa: E402

COMMAND_TIMEOUT_S = 10
LINK_UP_DEADLINE_S = 10
CONTROL_HOST = 254                 # the control namespace's last octet
MULTICAST_RANGE = "224.0.0.0/4"
# tbf's queue: long enough that a sender descheduled on a loaded machine does not idle the
# link; the bucket holds 50 ms of tokens so a late tbf timer does not lose rate either
# (the reasoning is in tests/e2e/test_netns_hosts.py, GroundTruthTest).
SHAPER_QUEUE = "250ms"
SHAPER_BUCKET_SECONDS = 0.05
SHAPER_MIN_BURST_BYTES = 3000      # at least two full-size frames, or tbf drops them all
RATE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$")
RATE_UNITS = {"bit": 1, "kbit": 10 ** 3, "mbit": 10 ** 6, "gbit": 10 ** 9}
DIRECTIONS = ("out", "in", "both")


def run(argv, check=True):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except FileNotFoundError as error:
        raise SetupError(f"{argv[0]} not found: {error}") from None
    except subprocess.TimeoutExpired:
        raise SetupError(f"{shlex.join(argv)} did not finish within {COMMAND_TIMEOUT_S} s") \
            from None
    if check and done.returncode != 0:
        raise SetupError(f"{shlex.join(argv)} failed: {done.stderr.strip()}")
    return done


def namespace_names(lab_name, hosts):
    """(switch, control, [host namespaces]) for a lab: all start with nplab-NAME-."""
    base = f"nplab-{lab_name}"
    return f"{base}-sw", f"{base}-ctl", [f"{base}-h{index}" for index in range(hosts)]


def add_namespace(name, made):
    """Makes one namespace (lo up) and records it in `made` before anything else can fail."""
    namespace = NetworkNamespace(name)
    made.append(name)
    namespace.create()


def delete_namespace(name):
    namespace = NetworkNamespace(name)
    namespace.created = True
    namespace.delete()


def build(switch, control, hosts, subnet, made, on_change):
    """Namespaces, bridge, one veth per host and for the control namespace, addresses.
    `made` collects every namespace as it is created; on_change() saves it (so `down` finds
    a half-built lab). Returns {namespace: address}."""
    for name in [switch, control, *hosts]:
        add_namespace(name, made)
        on_change()
    # No STP (no listening delay), no multicast snooping (no querier here).
    run(["ip", "-n", switch, "link", "add", "br0", "type", "bridge", "stp_state", "0",
         "forward_delay", "0", "mcast_snooping", "0"])
    run(["ip", "-n", switch, "link", "set", "br0", "up"])
    addresses = {}
    ends = [(name, f"p{index}", f"{subnet}.{index + 1}") for index, name in enumerate(hosts)]
    ends.append((control, "pctl", f"{subnet}.{CONTROL_HOST}"))
    for namespace, port, address in ends:
        # Both ends are created inside namespaces: nothing appears in the root namespace.
        run(["ip", "-n", switch, "link", "add", port, "type", "veth", "peer", "name", "eth0",
             "netns", namespace])
        run(["ip", "-n", switch, "link", "set", port, "master", "br0"])
        run(["ip", "-n", switch, "link", "set", port, "up"])
        run(["ip", "netns", "exec", namespace, "sysctl", "-q", "-w",
             "net.ipv6.conf.eth0.disable_ipv6=1"], check=False)
        run(["ip", "-n", namespace, "addr", "add", f"{address}/24", "brd", "+", "dev", "eth0"])
        run(["ip", "-n", namespace, "link", "set", "eth0", "up"])
        # Multicast a process sends without naming its interface goes over the lab's link too
        # (the launcher names it: --mc-interface), not to lo as in the harness's namespaces.
        run(["ip", "-n", namespace, "route", "replace", MULTICAST_RANGE, "dev", "eth0"])
        addresses[namespace] = address
    wait_until_forwarding(switch, [namespace for namespace, _, _ in ends])
    return addresses


def wait_until_forwarding(switch, namespaces):
    deadline = time.monotonic() + LINK_UP_DEADLINE_S
    while True:
        carrier = all("LOWER_UP" in run(["ip", "-n", ns, "link", "show", "eth0"]).stdout
                      for ns in namespaces)
        ports = json.loads(run(["ip", "-n", switch, "-j", "-d", "link", "show", "master",
                                "br0"]).stdout or "[]")
        states = [port.get("linkinfo", {}).get("info_slave_data", {}).get("state")
                  for port in ports]
        if carrier and states.count("forwarding") == len(namespaces):
            return
        if time.monotonic() >= deadline:
            raise SetupError(f"lab links not up within {LINK_UP_DEADLINE_S} s: bridge ports "
                             f"{states}")
        time.sleep(0.02)


def rate_bits(rate):
    """tc's rate units as bits/s ('20mbit' = 20,000,000); SetupError for anything else."""
    match = RATE.match(rate)
    if not match:
        raise SetupError(f"rate {rate!r}: give a number and bit, kbit, mbit or gbit "
                         "(tc's units, powers of 10), e.g. 20mbit")
    return float(match.group(1)) * RATE_UNITS[match.group(2)]


def shape(switch, host_namespace, port, rate, direction):
    """A token bucket at `rate` on what the host sends (out: its eth0), receives (in: its
    bridge port, whose egress is towards the host) or both; rate 'none' removes it."""
    if direction not in DIRECTIONS:
        raise SetupError(f"direction {direction!r}: one of {', '.join(DIRECTIONS)}")
    places = []
    if direction in ("out", "both"):
        places.append((host_namespace, "eth0"))
    if direction in ("in", "both"):
        places.append((switch, port))
    for namespace, device in places:
        if rate == "none":
            run(["tc", "-n", namespace, "qdisc", "del", "dev", device, "root"], check=False)
            continue
        burst = max(SHAPER_MIN_BURST_BYTES, int(rate_bits(rate) / 8 * SHAPER_BUCKET_SECONDS))
        run(["tc", "-n", namespace, "qdisc", "replace", "dev", device, "root", "tbf",
             "rate", rate, "burst", str(burst), "latency", SHAPER_QUEUE])


def pids_in(namespace):
    done = run(["ip", "netns", "pids", namespace], check=False)
    return [int(pid) for pid in done.stdout.split() if pid.isdigit()]
