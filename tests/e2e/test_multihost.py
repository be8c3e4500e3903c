"""End-to-end: scripts/tools/launch.py against a lab of hosts (scripts/lab/lab.py).

The lab is five network namespaces on one bridge, each running its own sshd with keys made
for the lab; the launcher, in the root namespace, reaches them through the lab's ssh_config,
as it would real machines. Addresses exist only inside the namespaces. One lab serves every
test of the file (making it takes a few seconds); `lab.py down` removes it, its processes and
its keys at the end, even when a test fails, and is run twice to prove it is safe to repeat.
Every launcher run has a deadline, and after each one no netprof may be left on any host and
no run folder in the hosts' work directory. Needs root and openssh-server; without them every
test is skipped with the reason, never passed.
"""

import atexit
import csv
import dataclasses
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import unittest

from netprof_test_case import NETPROF, ROOT, run_script

sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import netprof_hosts_file as hosts_file  # noqa: E402
import netprof_harness as harness  # noqa: E402
from netprof_processes import Processes  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "scripts", "tools"))
import launch  # noqa: E402

LAB = os.path.join(ROOT, "scripts", "lab", "lab.py")
LAUNCH = os.path.join(ROOT, "scripts", "tools", "launch.py")
LAB_HOSTS = 5
LAUNCH_DEADLINE_S = 40
# How long a launcher may take to have every role running (ssh to each lab host, the publisher
# last); 20 s was once not enough on a fresh, busy machine.
ROLES_START_DEADLINE_S = 40
SUBNET = f"10.78.{os.getpid() % 250}"
# A modest run every host carries without loss on a loaded 2-core machine.
MODEST = ["-s", "256", "--send-hz", "2000", "-t", "1", "--warmup-time", "0.2"]
NETPROF_HEADER = 52           # docs/json-schema.md (data messages; echoes carry 16 B more)
BELOW_UDP = 14 + 20 + 8       # what tbf counts besides netprof's message: Ethernet, IPv4, UDP
TOLERANCE = 0.10


def netprof_path():
    """The binary under test, as an absolute path: a remote shell's PATH is not ours."""
    return os.path.abspath(shutil.which(NETPROF) or NETPROF)


def skip_reason():
    if os.geteuid() != 0:
        return "needs root (ip netns add)"
    if not os.access("/usr/sbin/sshd", os.X_OK):
        return "needs openssh-server (scripts/setup/install_deps.sh)"
    if shutil.which("ssh") is None:
        return "needs openssh-client"
    return None


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def sweep_stale_labs():
    """Labs of earlier runs of this file that were killed before their cleanup (SIGKILL):
    `lab.py down` from their record removes their namespaces, sshds and keys."""
    for record in glob.glob(os.path.join(tempfile.gettempdir(), "netprof-multihost-*", "lab",
                                         "lab.json")):
        try:
            with open(record) as f:
                owner = json.load(f).get("name", "")
        except (OSError, ValueError):
            continue
        if owner.startswith("t") and owner[1:].isdigit() and not pid_alive(int(owner[1:])):
            lab_dir = os.path.dirname(record)
            run_script(LAB, "--dir", lab_dir, "down", deadline_s=60)
            shutil.rmtree(os.path.dirname(lab_dir), ignore_errors=True)


def _terminated(signum, _frame):
    # A runner that times out sends SIGTERM: unwind like Ctrl-C (run_script kills the
    # launcher by PID on the way), then the exit handler takes the lab down.
    raise KeyboardInterrupt


class MultiHostTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        reason = skip_reason()
        if reason:
            raise unittest.SkipTest(reason)
        sweep_stale_labs()
        cls.top = tempfile.mkdtemp(prefix="netprof-multihost-")
        cls.addClassCleanup(shutil.rmtree, cls.top, ignore_errors=True)
        cls.lab_dir = os.path.join(cls.top, "lab")
        cls.addClassCleanup(cls.lab_down)
        # Should the class cleanups never run (SIGTERM, Ctrl-C), the lab still goes.
        atexit.register(shutil.rmtree, cls.top, ignore_errors=True)
        atexit.register(run_script, LAB, "--dir", cls.lab_dir, "down", deadline_s=60)
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _terminated)
        code, out, err = run_script(LAB, "--dir", cls.lab_dir, "up", str(LAB_HOSTS),
                                    "--name", f"t{os.getpid()}", "--subnet", SUBNET,
                                    "--netprof", netprof_path(), deadline_s=60)
        if code != 0:
            raise AssertionError(f"lab.py up exited {code}: {out}{err}")
        with open(os.path.join(cls.lab_dir, "lab.json")) as f:
            cls.lab = json.load(f)
        cls.ssh_config = os.path.join(cls.lab_dir, "ssh_config")

    @classmethod
    def lab_down(cls):
        for attempt in range(2):  # the second must find nothing and still succeed
            code, out, err = run_script(LAB, "--dir", cls.lab_dir, "down", deadline_s=60)
            assert code == 0, f"lab.py down exited {code}: {out}{err}"
        leftover = [line for line in subprocess.run(["ip", "netns", "list"],
                                                    capture_output=True, text=True).stdout
                    .splitlines() if f"nplab-t{os.getpid()}-" in line]
        assert not leftover, f"lab.py down left namespaces: {leftover}"
        assert not os.path.exists(cls.lab_dir), "lab.py down left its directory (keys)"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=self.top)
        self.work_dir = os.path.join(self.tmp, "hosts-work")   # every lab host's work_dir
        os.makedirs(self.work_dir)
        self.out = os.path.join(self.tmp, "out")
        self.addCleanup(self.assert_nothing_left)

    # --- helpers --------------------------------------------------------------------------

    def host(self, index):
        return self.lab["hosts"][index]

    def write_hosts(self, subscribers, extra=None, netprof=None, top=None, publishers=1):
        """A hosts file: h0 (to h(P-1)) publishes, the next N hosts subscribe; `extra` adds
        fields to a host by index, e.g. {2: {"netprof": "/nowhere"}}; `top` adds top-level
        settings."""
        extra = extra or {}
        lines = [f"netprof = {json.dumps(netprof or netprof_path())}",
                 f"work_dir = {json.dumps(self.work_dir)}", "port = 41000"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in (top or {}).items()]
        for index in range(subscribers + publishers):
            fields = {"name": f"host{index}", "role": "publisher" if index < publishers else
                      "subscriber", "ssh": self.host(index)["name"],
                      "address": self.host(index)["address"], **extra.get(index, {})}
            lines.append("\n[[host]]")
            lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
        path = os.path.join(self.tmp, "hosts.toml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def launch(self, hosts_path, *netprof_args):
        started = time.monotonic()
        code, out, err = run_script(LAUNCH, "--ssh-config", self.ssh_config, "--netprof",
                                    netprof_path(), "--connect-timeout", "5", "--out",
                                    self.out, hosts_path, *netprof_args,
                                    deadline_s=LAUNCH_DEADLINE_S)
        print(f"\nlaunch.py: exit {code} in {time.monotonic() - started:.1f} s",
              file=sys.stderr)
        return code, out, err

    def merged(self):
        with open(os.path.join(self.out, "merged.json")) as f:
            return json.load(f)

    def netprof_pids_on_lab_hosts(self):
        found = []
        for host in self.lab["hosts"]:
            listed = subprocess.run(["ip", "netns", "pids", host["namespace"]],
                                    capture_output=True, text=True, timeout=10).stdout
            for pid in listed.split():
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        if f.read().strip() == "netprof":
                            found.append((host["name"], int(pid)))
                except OSError:
                    pass
        return found

    def assert_nothing_left(self):
        """No netprof on any lab host (a stop by PID may take a moment to land), and no run
        folder left in the hosts' work directory."""
        deadline = time.monotonic() + 5
        while self.netprof_pids_on_lab_hosts() and time.monotonic() < deadline:
            time.sleep(0.1)
        left = self.netprof_pids_on_lab_hosts()
        for _, pid in left:  # do not let one test's leftovers spoil the next
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.assertEqual(left, [], "netprof left running on lab hosts")
        self.assertEqual(os.listdir(self.work_dir), [], "run folders left on the hosts")

    # --- tests ----------------------------------------------------------------------------

    def test_publisher_and_four_subscribers_on_five_hosts(self):
        # One host gets its binary copied over (scp) for the run, from a path nothing else
        # runs: the copy is what runs there, and is removed with the run's folder.
        hosts = self.write_hosts(4, {4: {"copy_binary": True, "netprof": "/nonexistent"}})
        code, out, err = self.launch(hosts, *MODEST)
        self.assertEqual(code, 0, out + err)
        merged = self.merged()
        self.assertEqual(merged["launcher"]["status"], 0)
        publisher = merged["publisher"]["report"]
        self.assertEqual(publisher["settings"]["transport"], "udp")
        self.assertEqual(sorted(s["id"] for s in publisher["subscribers"]), [1, 2, 3, 4])
        self.assertEqual(len(merged["subscribers"]), 4)
        for index, entry in enumerate(merged["subscribers"], 1):
            with self.subTest(subscriber=entry["name"]):
                self.assertEqual(entry["exit_code"], 0)
                own = entry["report"]["subscriber"]
                self.assertEqual(own["id"], index)
                self.assertGreater(own["received"], 0)
                self.assertGreater(own["throughput"]["messages_per_second"], 0)
                self.assertEqual(entry["report"]["run_id"], publisher["run_id"])
                # It ran on its own host: bound to that host's lab address.
                self.assertEqual(entry["report"]["endpoint"]["local_addresses"],
                                 [f"{self.host(index)['address']}:{41000 + index}"])
        self.assertTrue(merged["subscribers"][3]["report"]["command_line"][0].startswith(
            self.work_dir), "copy_binary: the copied binary ran")
        with open(os.path.join(self.out, "subscribers.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([row["name"] for row in rows], ["host1", "host2", "host3", "host4"])
        for row in rows:
            self.assertGreater(int(row["received"]), 0)
            self.assertEqual(row["outcome"], "complete")

    def launch_to_two_hosts(self, transport, *netprof_args):
        """h0 publishes, h1 and h2 subscribe over `transport`, at a modest rate; every role
        exits 0 and the publisher's report has both subscribers, each with every message and
        nothing lost. Returns the publisher's report."""
        code, out, err = self.launch(self.write_hosts(2, top={"transport": transport}),
                                     *MODEST, *netprof_args)
        self.assertEqual(code, 0, out + err)
        merged = self.merged()
        publisher = merged["publisher"]["report"]
        self.assertEqual(publisher["settings"]["transport"], transport)
        self.assertEqual(sorted(s["id"] for s in publisher["subscribers"]), [1, 2])
        sent = publisher["publisher"]["messages_sent"]
        self.assertGreater(sent, 0)
        for seen in publisher["subscribers"]:
            with self.subTest(subscriber=seen["id"]):
                self.assertEqual((seen["received"], seen["lost"]), (sent, 0))
        for entry in merged["subscribers"]:
            self.assertEqual(entry["exit_code"], 0, entry["problem"])
        return merged

    def notes(self, entry):
        return " ".join(entry["report"]["endpoint"]["notes"])

    def test_round_robin_across_hosts_charges_each_subscriber_its_share(self):
        """--fanout round-robin over TCP to two hosts: each gets half, and subscribers.csv takes
        each one's loss from the publisher, which alone knows what it dealt to whom."""
        code, out, err = self.launch(self.write_hosts(2, top={"transport": "tcp"}), *MODEST,
                                     "--fanout", "round-robin")
        self.assertEqual(code, 0, out + err)
        publisher = self.merged()["publisher"]["report"]
        sent = publisher["publisher"]["messages_sent"]
        shares = sorted(s["messages_owed"] for s in publisher["subscribers"])
        self.assertEqual(sum(shares), sent)
        self.assertLessEqual(shares[1] - shares[0], 1, shares)
        with open(os.path.join(self.out, "subscribers.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(sorted(int(row["messages_owed"]) for row in rows), shares)
        for row in rows:
            self.assertEqual((row["lost"], int(row["received"])),
                             ("0", int(row["messages_owed"])), row)

    def test_multicast_across_hosts_on_the_interface_facing_them(self):
        merged = self.launch_to_two_hosts("multicast")
        self.assertEqual(merged["publisher"]["report"]["endpoint"]["peer_addresses"],
                         ["239.255.0.1:41000"])
        # Each host joined and sent on its lab link, named by its address, not by a route.
        for index, entry in enumerate([merged["publisher"], *merged["subscribers"]]):
            self.assertIn(f"joined on eth0 ({self.host(index)['address']})", self.notes(entry))

    def test_two_publishers_over_multicast_and_publisher_0_gathers_both(self):
        """Publishers on h0 and h1, subscribers on h2 and h3: each publisher's stream on the
        group's port + its id; publisher 0 gathers publisher 1's report over the lab link
        (--lead) and the merged files hold both publishers' views of each subscriber."""
        code, out, err = self.launch(self.write_hosts(2, publishers=2,
                                                      top={"transport": "multicast"}), *MODEST)
        self.assertEqual(code, 0, out + err)
        merged = self.merged()
        self.assertEqual([p["id"] for p in merged["publishers"]], [0, 1])
        self.assertEqual([s["id"] for s in merged["subscribers"]], [2, 3])
        lead = merged["publisher"]["report"]
        self.assertEqual([p["id"] for p in lead["publishers"]], [0, 1])
        for entry, own in zip(lead["publishers"], merged["publishers"]):
            with self.subTest(publisher=entry["id"]):
                self.assertEqual(entry["result"]["status"], "SUCCESS")
                sent = own["report"]["publisher"]["messages_sent"]
                self.assertEqual(entry["publisher"]["messages_sent"], sent)
                self.assertEqual([(s["id"], s["received"], s["lost"])
                                  for s in entry["subscribers"]], [(2, sent, 0), (3, sent, 0)])
        self.assertIn(f"gathered by publisher 0 at {self.host(0)['address']}:41004", out)
        with open(os.path.join(self.out, "subscribers.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(row["publisher"], row["id"]) for row in rows],
                         [("0", "2"), ("0", "3"), ("1", "2"), ("1", "3")])
        for row in rows:
            self.assertEqual((row["lost"], row["received"]),
                             ("0", row["publisher_messages_sent"]), row)

    def test_broadcast_across_hosts_on_the_lab_subnet(self):
        merged = self.launch_to_two_hosts("broadcast")
        for entry in [merged["publisher"], *merged["subscribers"]]:
            self.assertEqual(entry["report"]["endpoint"]["peer_addresses"],
                             [f"{SUBNET}.255:41000"])

    def test_dds_across_hosts_on_the_interface_facing_them(self):
        # Keep-all, so that a subscriber descheduled on a loaded machine pushes back instead
        # of losing what the writer's keep-last history no longer holds.
        merged = self.launch_to_two_hosts("dds", "--dds-history", "keep-all")
        for index, entry in enumerate([merged["publisher"], *merged["subscribers"]]):
            self.assertIn(f"--dds-interface: Cyclone on eth0 ({self.host(index)['address']}) "
                          "only", self.notes(entry))

    def test_fastdds_across_hosts_on_the_interface_facing_them(self):
        merged = self.launch_to_two_hosts("fastdds")
        self.assertIn(f"--fastdds-interface: UDPv4 on eth0 ({self.host(0)['address']}) only",
                      self.notes(merged["publisher"]))

    def test_lab_multicast_and_broadcast_stay_on_the_lab_link(self):
        """What the lab's hosts send to a group or their broadcast address can only go over
        eth0, into the lab's bridge: they have no other link, and their routes say so."""
        for host in self.lab["hosts"]:
            with self.subTest(host=host["name"]):
                links = json.loads(subprocess.run(
                    ["ip", "-n", host["namespace"], "-j", "link", "show"], capture_output=True,
                    text=True, timeout=10).stdout)
                self.assertEqual(sorted(link["ifname"] for link in links), ["eth0", "lo"])
                for destination in ("239.255.0.1", f"{SUBNET}.255"):
                    route = json.loads(subprocess.run(
                        ["ip", "-n", host["namespace"], "-j", "route", "get", destination],
                        capture_output=True, text=True, timeout=10).stdout)
                    self.assertEqual(route[0]["dev"], "eth0", destination)

    def test_multicast_to_a_host_without_that_address_is_refused_by_it(self):
        """host2's hosts-file address is on none of its interfaces: its netprof refuses
        --mc-interface, and the launcher names the host and exits 2, every role stopped."""
        missing = f"{SUBNET}.77"
        hosts = self.write_hosts(2, {2: {"address": missing}}, top={"transport": "multicast"})
        code, out, err = self.launch(hosts, *MODEST)
        self.assertEqual(code, 2, out + err)
        self.assertIn(f"subscriber 'host2' on h2: netprof refused its arguments: netprof: bad "
                      f"--mc-interface value '{missing}': no interface has this address", err)

    def start_mosquitto_on(self, host, port):
        """A mosquitto listening on `host`'s lab address only, in its namespace (a broker
        machine of the lab's), killed by PID in cleanup (and with the lab at the latest)."""
        folder = tempfile.mkdtemp(prefix="netprof-multihost-broker-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        os.chmod(folder, 0o755)  # mosquitto drops to its own user
        config = os.path.join(folder, "mosquitto.conf")
        with open(config, "w") as f:
            f.write(f"listener {port} {host['address']}\nallow_anonymous true\n"
                    "persistence false\n")
        os.chmod(config, 0o644)
        processes = Processes()
        self.addCleanup(processes.kill_all)
        broker = processes.start(["ip", "netns", "exec", host["namespace"], "mosquitto", "-c",
                                  config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        probe = (f"import socket; socket.create_connection(({host['address']!r}, {port}), 1)")
        deadline = time.monotonic() + 10
        while subprocess.run(["ip", "netns", "exec", host["namespace"], sys.executable, "-c",
                              probe], capture_output=True, timeout=10).returncode != 0:
            self.assertIsNone(broker.poll(), "mosquitto exited before it accepted connections")
            self.assertLess(time.monotonic(), deadline, "mosquitto never accepted connections")
            time.sleep(0.1)

    @unittest.skipUnless(shutil.which("mosquitto"), "mosquitto is not installed")
    def test_mqtt_through_a_broker_on_a_host_of_its_own(self):
        broker = f"{self.host(4)['address']}:1883"
        self.start_mosquitto_on(self.host(4), 1883)
        hosts = self.write_hosts(2, top={"transport": "mqtt", "broker": broker})
        code, out, err = self.launch(hosts, *MODEST)
        self.assertEqual(code, 0, out + err)
        merged = self.merged()
        publisher = merged["publisher"]["report"]
        self.assertEqual(publisher["settings"]["transport"], "mqtt")
        self.assertIn(f"at {broker}", " ".join(publisher["endpoint"]["notes"]))
        self.assertEqual(sorted(s["id"] for s in publisher["subscribers"]), [1, 2])
        for entry in merged["subscribers"]:
            with self.subTest(subscriber=entry["name"]):
                self.assertEqual(entry["exit_code"], 0)
                self.assertGreater(entry["report"]["subscriber"]["received"], 0)

    def test_shaped_link_rate_in_the_report(self):
        """tbf at 20 Mbit/s on what the publisher's host sends; the publisher offers about
        twice that, so the link is the limit and the subscriber's throughput is its rate."""
        rate_bits, size, send_hz = 20_000_000, 1400, 3500
        self.shape("h0", "20mbit")
        frame = size + NETPROF_HEADER + BELOW_UDP
        expected_payload = rate_bits / 8 / frame * size
        self.assertGreater(send_hz, 1.8 * rate_bits / 8 / frame)
        code, out, err = self.launch(self.write_hosts(1), "-s", str(size), "--send-hz",
                                     str(send_hz), "-t", "2", "--warmup-time", "0.5",
                                     "-q", "8000000")
        self.assertEqual(code, 0, out + err)
        own = self.merged()["subscribers"][0]["report"]["subscriber"]
        measured = own["throughput"]["payload_bytes_per_second"]
        print(f"shaped link: expected {expected_payload:,.0f} B/s of payload, measured "
              f"{measured:,.0f} B/s (ratio {measured / expected_payload:.3f}), lost "
              f"{own['lost']}", file=sys.stderr)
        self.assertLessEqual(abs(measured / expected_payload - 1), TOLERANCE)
        self.assertGreater(own["lost"], 0, "nothing lost: the link was not the limit")

    def test_asymmetric_link_shows_in_forward_and_backward(self):
        """tbf on what the publisher's host sends only, offered about 1.4 times its rate: the
        forward direction queues (up to the lab's 250 ms), the backward one does not. The
        cross-clock figures must say so, forward well above backward, which RTT/2 (one figure
        for both) cannot. The early warm-up probes find the queue empty, so the offset is
        pinned down; the lab's hosts share one kernel clock, so it must be 0 within its bound."""
        rate_bits, size, send_hz = 20_000_000, 1400, 2300
        self.shape("h0", "20mbit", "out")
        frame = size + NETPROF_HEADER + BELOW_UDP
        self.assertGreater(send_hz, 1.3 * rate_bits / 8 / frame)
        code, out, err = self.launch(self.write_hosts(1), "-s", str(size), "--send-hz",
                                     str(send_hz), "-t", "1", "--warmup-time", "0.3",
                                     "-q", "8000000")
        self.assertEqual(code, 0, out + err)
        [seen] = self.merged()["publisher"]["report"]["subscribers"]
        cross = seen["latency"]["cross_clock"]
        self.assertIsNotNone(cross, "the echoes carried no stamps")
        forward, backward = cross["forward_ns"]["p50"], cross["backward_ns"]["p50"]
        rtt_half = seen["latency"]["one_way_ns"]["p50"]
        offset, bound = cross["offset_ns"], cross["bound_ns"]
        print(f"asymmetric link: offset {offset} ns ± {bound} ns, forward p50 {forward} ns, "
              f"backward p50 {backward} ns, RTT/2 p50 {rtt_half} ns", file=sys.stderr)
        self.assertLessEqual(abs(offset), bound)
        self.assertGreater(forward - backward, 2 * bound + 2_000_000,
                           "the shaped (forward) direction queued, the other did not")
        self.assertGreater(forward, 5 * backward)
        # RTT/2 splits the difference: one figure between the two directions.
        self.assertLess(backward, rtt_half)
        self.assertLess(rtt_half, forward)
        with open(os.path.join(self.out, "subscribers.csv")) as f:
            [row] = list(csv.DictReader(f))
        self.assertEqual(int(row["forward_p50_ns"]), forward)
        self.assertEqual(int(row["clock_offset_bound_ns"]), bound)
        self.assertEqual(int(row["turnaround_p50_ns"]), cross["turnaround_ns"]["p50"])

    def shape(self, host, rate, direction="out"):
        code, out, err = run_script(LAB, "--dir", self.lab_dir, "shape", host, rate,
                                    "--direction", direction, deadline_s=20)
        self.assertEqual(code, 0, out + err)
        self.addCleanup(run_script, LAB, "--dir", self.lab_dir, "shape", host, "none",
                        "--direction", "both", deadline_s=20)

    def test_unreachable_host_is_named_and_nothing_starts(self):
        hosts = self.write_hosts(2, {2: {"name": "ghost", "ssh": f"root@{SUBNET}.99"}})
        code, out, err = self.launch(hosts, *MODEST)
        self.assertEqual(code, 3, out + err)
        self.assertIn("host 'ghost'", err)
        self.assertIn("unreachable", err)
        self.assertNotIn("host 'host1'", err)

    def test_host_without_netprof_is_named_and_nothing_starts(self):
        hosts = self.write_hosts(2, {2: {"netprof": "/nonexistent/netprof"}})
        code, out, err = self.launch(hosts, *MODEST)
        self.assertEqual(code, 3, out + err)
        self.assertIn("host 'host2'", err)
        self.assertIn("has no netprof at /nonexistent/netprof", err)

    def test_version_mismatch_is_named(self):
        impostor = os.path.join(self.tmp, "netprof")
        with open(impostor, "w") as f:
            f.write("#!/bin/sh\necho 'netprof 0.0.1 (commit 000000000000)'\n")
        os.chmod(impostor, 0o755)
        code, out, err = self.launch(self.write_hosts(1, {1: {"netprof": impostor}}), *MODEST)
        self.assertEqual(code, 3, out + err)
        self.assertIn("host 'host1' runs another netprof", err)

    def test_interrupt_stops_every_remote_role(self):
        processes = Processes()
        self.addCleanup(processes.kill_all)
        launcher = processes.start([LAUNCH, "--ssh-config", self.ssh_config, "--netprof",
                                    netprof_path(), "--out", self.out, self.write_hosts(1),
                                    "-t", "60", "--send-hz", "500"], cwd=ROOT)
        self.wait_until_publisher_started(launcher, roles=2)
        launcher.send_signal(signal.SIGINT)
        done = processes.finish(launcher, deadline_s=20)
        self.assertEqual(done.returncode, 130, done.stdout + done.stderr)
        self.assertIn("interrupted", done.stderr)

    def test_host_that_dies_mid_run_stops_the_run(self):
        """A subscriber's host unplugged mid-run: ssh's keep-alive notices, the launcher names
        it, stops the others by PID and exits 4. What ran on the dead host ends by itself
        (the publisher silent: --idle-timeout); its run folder stays, as on a real dead host."""
        processes = Processes()
        self.addCleanup(processes.kill_all)
        launcher = processes.start([LAUNCH, "--ssh-config", self.ssh_config, "--netprof",
                                    netprof_path(), "--connect-timeout", "3", "--out",
                                    self.out, self.write_hosts(2), "-t", "60", "--send-hz",
                                    "500"], cwd=ROOT)
        self.wait_until_publisher_started(launcher, roles=3)
        self.cable("unplug", "h2")
        self.addCleanup(self.cable, "plug", "h2")
        done = processes.finish(launcher, deadline_s=40)
        self.assertEqual(done.returncode, 4, done.stdout + done.stderr)
        # Named as lost by its ssh's keep-alive, or, should another role end the run first,
        # as unreachable when the launcher came to stop it.
        self.assertRegex(done.stderr, r"subscriber 'host2' on h2: lost|host 'host2' \(h2\) "
                                      r"unreachable when stopping")
        self.cable("plug", "h2")
        # The dead host's folder is the one thing the launcher could not remove.
        for name in os.listdir(self.work_dir):
            shutil.rmtree(os.path.join(self.work_dir, name))

    def wait_until_publisher_started(self, launcher, roles):
        """Until every role runs netprof on its host (the publisher is started last). A launcher
        that ends first, or roles still missing at the deadline, fail the test with what the
        launcher said (it is stopped by its PID first): "roles not started" alone told nothing
        on the one slow machine where it happened."""
        deadline = time.monotonic() + ROLES_START_DEADLINE_S
        while (len(self.netprof_pids_on_lab_hosts()) < roles and launcher.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.1)
        started = self.netprof_pids_on_lab_hosts()
        if len(started) != roles or launcher.poll() is not None:
            if launcher.poll() is None:
                launcher.kill()
            stdout, stderr = launcher.communicate(timeout=10)
            self.fail(f"{len(started)} of {roles} roles started within "
                      f"{ROLES_START_DEADLINE_S} s (launcher exit status {launcher.returncode}):"
                      f"\n{stdout}{stderr}")
        time.sleep(0.5)  # into the run

    def cable(self, command, host):
        code, out, err = run_script(LAB, "--dir", self.lab_dir, command, host, deadline_s=20)
        self.assertEqual(code, 0, out + err)

    def test_sweep_runs_through_the_launcher(self):
        sweep_out = os.path.join(self.tmp, "sweep")
        code, out, err = run_script(os.path.join(ROOT, "scripts", "tools", "sweep.py"),
                                    "--netprof", netprof_path(), "--hosts", self.write_hosts(3),
                                    "--ssh-config", self.ssh_config, "--sizes", "64",
                                    "--subscribers", "2", "--duration", "0.5", "--warmup", "0.1",
                                    "--send-hz", "1000", "--out", sweep_out,
                                    deadline_s=LAUNCH_DEADLINE_S)
        self.assertEqual(code, 0, out + err)
        with open(os.path.join(sweep_out, "sweep.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 1)
        self.assertEqual((rows[0]["status"], rows[0]["transport"], rows[0]["subscribers"]),
                         ("ok", "udp", "2"), rows[0]["reason"])
        self.assertGreater(float(rows[0]["messages_per_second"]), 0)
        # The point's publisher had the first two subscribers of the hosts file (listed in
        # order of arrival), and no third.
        self.assertEqual({rows[0]["subscribers.0.id"], rows[0]["subscribers.1.id"]},
                         {"1", "2"})
        self.assertNotIn("subscribers.2.id", rows[0])

    def test_one_direction_only_is_shaped(self):
        """`--direction in` shapes what the host receives (its bridge port), not what it
        sends (its eth0); `out` the reverse."""
        switch, host = self.lab["switch"], self.host(3)

        def has_tbf(namespace, device):
            return "tbf" in subprocess.run(["tc", "-n", namespace, "qdisc", "show", "dev",
                                            device], capture_output=True, text=True,
                                           timeout=10).stdout

        def shape(rate, direction):
            code, out, err = run_script(LAB, "--dir", self.lab_dir, "shape", "h3", rate,
                                        "--direction", direction, deadline_s=20)
            self.assertEqual(code, 0, out + err)
            return has_tbf(host["namespace"], "eth0"), has_tbf(switch, host["port"])

        self.addCleanup(shape, "none", "both")
        self.assertEqual(shape("5mbit", "in"), (False, True))
        self.assertEqual(shape("none", "both"), (False, False))
        self.assertEqual(shape("5mbit", "out"), (True, False))


class HostsFileTest(unittest.TestCase):
    """Bad input: one clear line and exit 2, before any host is contacted (no lab needed)."""

    PUBLISHER = '[[host]]\nname = "a"\nrole = "publisher"\nssh = "h0"\naddress = "10.0.0.1"\n'
    CASES = {
        "malformed": ("port = [\n", "is not valid TOML"),
        "missing field": ('[[host]]\nname = "a"\nrole = "publisher"\nssh = "h0"\n',
                          "[[host]] #1: missing address"),
        "unknown role": (PUBLISHER.replace('"publisher"', '"relay"'), "unknown role 'relay'"),
        "unknown field": ("pot = 4000\n", "unknown field 'pot'"),
        "wrong type": ('port = "4000"\n', "port must be an integer, not a string"),
        "no publisher": (PUBLISHER.replace('"publisher"', '"subscriber"'),
                         'no [[host]] with role = "publisher"'),
        "no subscriber": (PUBLISHER, 'no [[host]] with role = "subscriber"'),
        "bad broker": ('broker = "10.0.0.5"\n', "broker '10.0.0.5': HOST:PORT"),
    }

    def test_bad_hosts_files_get_a_clear_message(self):
        for case, (text, expected) in self.CASES.items():
            with self.subTest(case=case):
                with self.assertRaises(hosts_file.HostsFileError) as raised:
                    hosts_file.parse(tomllib.loads(text)) if case != "malformed" else \
                        hosts_file.load(self.write(text))
                self.assertIn(expected, str(raised.exception))

    def write(self, text):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "hosts.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_a_bad_hosts_file_exits_2_with_one_line(self):
        path = self.write(self.CASES["unknown role"][0])
        code, out, err = run_script(LAUNCH, "--netprof", netprof_path(), "--out",
                                    os.path.dirname(path), path, deadline_s=20)
        self.assertEqual(code, 2, err)
        self.assertEqual(err.strip(), f"launch: {path}: host 'a': unknown role 'relay': "
                                      "publisher or subscriber")

    def test_a_brokered_transport_needs_a_broker_which_every_role_is_given(self):
        listing = harness.describe(netprof_path())
        for transport, flag in (("mqtt", "--mqtt"), ("redis", "--redis")):
            with self.subTest(transport=transport):
                with self.assertRaises(hosts_file.HostsFileError) as refused:
                    hosts_file.remote_launch(listing, transport)
                self.assertIn(f"transport {transport!r} goes through a broker: give broker = "
                              '"HOST:PORT"', str(refused.exception))
                hosts = hosts_file.parse(tomllib.loads(
                    f'transport = "{transport}"\nbroker = "10.0.0.5:7000"\n' + self.PUBLISHER +
                    self.PUBLISHER.replace('"a"', '"b"').replace("publisher", "subscriber")))
                templates = hosts_file.remote_launch(listing, transport, broker=hosts.broker)
                for role in hosts.roles:
                    self.assertEqual(hosts_file.launch_arguments(templates, role,
                                                                 hosts.publisher, hosts.broker),
                                     [flag, "10.0.0.5:7000"])

    def test_a_transport_on_one_host_only_is_refused_naming_those_that_launch(self):
        path = self.write('transport = "shm"\n' + self.PUBLISHER +
                          self.PUBLISHER.replace('"a"', '"b"').replace("publisher", "subscriber"))
        code, out, err = run_script(LAUNCH, "--netprof", netprof_path(), "--out",
                                    os.path.dirname(path), path, deadline_s=20)
        self.assertEqual(code, 2, err)
        self.assertTrue(err.startswith(f"launch: {path}: transport 'shm' runs on one host "
                                       "only; across hosts: udp, multicast, broadcast, "), err)
        self.assertIn(", dds", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_an_interface_is_picked_by_the_address_alone(self):
        listing = harness.describe(netprof_path())
        hosts = hosts_file.parse(tomllib.loads(
            'port = 5000\n' + self.PUBLISHER + self.PUBLISHER.replace('"a"', '"b"').replace(
                "publisher", "subscriber").replace("10.0.0.1", "10.0.0.2")))
        expected = {"multicast": ["-m", "239.255.0.1:5000", "--mc-interface", "10.0.0.2"],
                    "broadcast": ["-b", "5000", "--bc-interface", "10.0.0.2"],
                    "dds": ["--dds", "--dds-interface", "10.0.0.2"],
                    "fastdds": ["--fastdds", "--fastdds-interface", "10.0.0.2"]}
        for transport, arguments in expected.items():
            with self.subTest(transport=transport):
                templates = hosts_file.remote_launch(listing, transport)
                self.assertEqual(hosts_file.launch_arguments(templates, hosts.subscribers[0],
                                                             hosts.publisher), arguments)
                named = dataclasses.replace(hosts, roles=[
                    hosts.publisher, dataclasses.replace(hosts.subscribers[0],
                                                         address="bench2.lan")])
                with self.assertRaises(hosts_file.HostsFileError) as refused:
                    hosts_file.check_addresses(templates, named)
                self.assertIn("host 'b': address 'bench2.lan': transport", str(refused.exception))
                self.assertIn("give the IPv4 address, not a name", str(refused.exception))

    def test_options_a_transport_template_sets_are_refused(self):
        path = self.write('transport = "multicast"\n' + self.PUBLISHER + self.PUBLISHER.replace(
            '"a"', '"b"').replace("publisher", "subscriber"))
        code, out, err = run_script(LAUNCH, "--netprof", netprof_path(), "--out",
                                    os.path.dirname(path), path, "--mc-interface=eth1",
                                    deadline_s=20)
        self.assertEqual(code, 2, err)
        self.assertEqual(err.strip(), "launch: --mc-interface: the launcher sets these from the "
                                      "hosts file")

    def test_several_publishers_need_a_shared_medium_and_each_gets_the_lead(self):
        listing = harness.describe(netprof_path())
        text = ('port = 5000\n' + self.PUBLISHER + self.PUBLISHER.replace('"a"', '"b"').replace(
            "10.0.0.1", "10.0.0.2") + self.PUBLISHER.replace('"a"', '"c"').replace(
            "publisher", "subscriber").replace("10.0.0.1", "10.0.0.3"))
        for transport in ("udp", "tcp", "zmq"):
            with self.subTest(transport=transport):
                hosts = hosts_file.parse(tomllib.loads(f'transport = "{transport}"\n' + text))
                with self.assertRaises(hosts_file.HostsFileError) as refused:
                    hosts_file.check_publishers(hosts_file.remote_launch(listing, transport),
                                                hosts)
                self.assertIn(f"2 publishers over {transport!r}: each publisher's stream is "
                              "derived from the one address", str(refused.exception))
                self.assertIn("multicast, broadcast, dds, fastdds, mqtt or redis",
                              str(refused.exception))
        hosts = hosts_file.parse(tomllib.loads('transport = "multicast"\n' + text))
        templates = hosts_file.remote_launch(listing, "multicast")
        hosts_file.check_publishers(templates, hosts)
        self.assertEqual([(r.name, r.index) for r in hosts.publishers], [("a", 0), ("b", 1)])
        self.assertEqual([(r.name, r.index) for r in hosts.subscribers], [("c", 2)])
        self.assertEqual(hosts.lead, "10.0.0.1:5003")
        arguments = launch.parse_arguments(["hosts.toml", "-t", "1"])
        self.assertEqual(launch.role_arguments(hosts, templates, arguments, hosts.publishers[1]),
                         ["-i", "1", "-m", "239.255.0.1:5000", "--mc-interface", "10.0.0.2",
                          "--subscribers", "1", "--publishers", "2", "--lead", "10.0.0.1:5003",
                          "--wait", "20", "-t", "1"])
        self.assertEqual(launch.role_arguments(hosts, templates, arguments, hosts.subscribers[0])
                         [-6:], ["--publishers", "2", "--wait", "20", "-t", "1"])

    def test_options_the_launcher_sets_are_refused(self):
        code, out, err = run_script(LAUNCH, "hosts.toml", "-t", "1", "--json", "x.json",
                                    deadline_s=20)
        self.assertEqual(code, 2)
        self.assertIn("--json: the launcher sets these from the hosts file", err)

# Outside the class body, whose names a comprehension cannot see.
HostsFileTest.CASES["seventeen publishers"] = (
    "".join(HostsFileTest.PUBLISHER.replace('"a"', f'"p{i}"') for i in range(17)),
    '17 hosts with role = "publisher": netprof takes at most 16')

if __name__ == "__main__":
    unittest.main()
