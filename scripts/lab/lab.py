#!/usr/bin/python3
"""A lab of test hosts on this machine, for scripts/tools/launch.py: N network namespaces on
one bridge, each running its own sshd with keys made for the lab, and links shaped with tc.

    scripts/lab/lab.py up 5 [--rate 100mbit [--direction out|in|both]] [--dir D] [--name N]
    scripts/lab/lab.py shape h0 20mbit [--direction out]     # 'none' removes the shaper
    scripts/lab/lab.py unplug h2 / plug h2                   # a host "dies" and comes back
    scripts/lab/lab.py down [--dir D]                        # safe to run twice
    scripts/tools/launch.py --ssh-config D/ssh_config D/hosts.toml -t 2

Hosts are h0 .. hN-1 at SUBNET.1 .. SUBNET.N (h0 is the publisher in the example hosts file
the lab writes). The lab directory (default /tmp/netprof-lab) holds every key, sshd config and
log, known_hosts, ssh_config, hosts.toml and lab.json, the record `down` works from: it stops
each sshd by the PID recorded at start, ends whatever else still runs in the lab's namespaces,
deletes the namespaces and removes the files. Needs root.

Exit status: 0 done, 2 bad arguments, 3 the lab could not be made (what was made is removed)
or found. Standard library only.
"""

import argparse
import json
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import lab_network as network  # noqa: E402
import lab_ssh as ssh  # noqa: E402
from netprof_exit import exit_status  # noqa: E402
from netprof_harness import default_netprof  # noqa: E402
from netprof_services import SetupError  # noqa: E402

DEFAULT_DIR = "/tmp/netprof-lab"
DEFAULT_SUBNET = "10.77.0"        # private; exists only inside the lab's namespaces
MAX_HOSTS = 100
STATE = "lab.json"


class UsageError(Exception):
    pass


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Network namespaces as test hosts, each with "
                                     "its own sshd, on one bridge; links shaped with tc.")
    parser.add_argument("--dir", default=DEFAULT_DIR, help="lab directory (default: %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", help="make N hosts")
    up.add_argument("hosts", type=int, help=f"how many hosts, 1 to {MAX_HOSTS}")
    up.add_argument("--name", default="lab", help="namespaces are nplab-NAME-* (default: "
                    "%(default)s)")
    up.add_argument("--subnet", default=DEFAULT_SUBNET, help="first three octets of the "
                    "hosts' /24 (default: %(default)s)")
    up.add_argument("--rate", help="shape every host's link, e.g. 100mbit (tc units)")
    up.add_argument("--direction", default="both", choices=network.DIRECTIONS,
                    help="with --rate: what each host sends (out), receives (in) or both")
    up.add_argument("--netprof", default=default_netprof(), help="netprof path written into "
                    "the example hosts.toml (default: %(default)s)")
    commands.add_parser("down", help="remove every namespace, process and key of the lab")
    shape = commands.add_parser("shape", help="shape one host's link (tbf)")
    shape.add_argument("host", help="h0, h1, ...")
    shape.add_argument("rate", help="e.g. 20mbit (tc units), or none")
    shape.add_argument("--direction", default="out", choices=network.DIRECTIONS,
                       help="what the host sends (out, default), receives (in) or both")
    for command, what in (("unplug", "take a host's link down, as if the host died"),
                          ("plug", "bring it back")):
        cable = commands.add_parser(command, help=what)
        cable.add_argument("host", help="h0, h1, ...")
    arguments = parser.parse_args(argv)
    arguments.dir = os.path.abspath(arguments.dir)
    if arguments.command == "up":
        if not 1 <= arguments.hosts <= MAX_HOSTS:
            raise UsageError(f"hosts: 1 to {MAX_HOSTS}")
        octets = arguments.subnet.split(".")
        if len(octets) != 3 or not all(o.isdigit() and int(o) < 256 for o in octets):
            raise UsageError(f"--subnet {arguments.subnet!r}: three octets, e.g. 10.77.0")
        if not arguments.name.replace("-", "").isalnum() or len(arguments.name) > 20:
            raise UsageError("--name: letters, digits and '-', at most 20")
    if getattr(arguments, "rate", None) and arguments.rate != "none":
        try:
            network.rate_bits(arguments.rate)
        except SetupError as error:
            raise UsageError(str(error)) from None
    return arguments


# --- the record `down` works from ------------------------------------------------------------


def state_path(lab_dir):
    return os.path.join(lab_dir, STATE)


def load_state(lab_dir):
    try:
        with open(state_path(lab_dir)) as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except ValueError as error:
        raise SetupError(f"{state_path(lab_dir)} is not a lab record: {error}") from None


def save_state(state):
    temporary = state_path(state["dir"]) + ".new"
    with open(temporary, "w") as f:
        json.dump(state, f, indent=1)
    os.replace(temporary, state_path(state["dir"]))


# --- up ----------------------------------------------------------------------------------------


def up(arguments):
    if os.geteuid() != 0:
        raise SetupError("needs root (ip netns add)")
    lab_dir = arguments.dir
    if load_state(lab_dir) is not None:
        raise SetupError(f"a lab is already up in {lab_dir}: `lab.py --dir {lab_dir} down` "
                         "first")
    dir_created = not os.path.isdir(lab_dir)
    os.makedirs(lab_dir, mode=0o700, exist_ok=True)
    switch, control, namespaces = network.namespace_names(arguments.name, arguments.hosts)
    state = {"dir": lab_dir, "dir_created": dir_created, "name": arguments.name,
             "subnet": arguments.subnet, "switch": switch, "control": control,
             "namespaces": [], "files": [], "hosts": []}
    save_state(state)
    try:
        build(arguments, state, namespaces)
    except BaseException:
        down(lab_dir)  # what was made so far, from the record
        raise
    return state


def build(arguments, state, namespaces):
    lab_dir = state["dir"]

    def keep(path):
        state["files"].append(path)
        save_state(state)
        return path

    addresses = network.build(state["switch"], state["control"], namespaces,
                              arguments.subnet, state["namespaces"], lambda: save_state(state))
    for suffix in ("", ".pub"):
        keep(os.path.join(lab_dir, "id_ed25519" + suffix))
    user_key = ssh.generate_key(os.path.join(lab_dir, "id_ed25519"), "netprof-lab user")
    with open(keep(os.path.join(lab_dir, "authorized_keys")), "w") as f:
        f.write(user_key + "\n")
    known = []
    for index, namespace in enumerate(namespaces):
        name = f"h{index}"
        host = {"name": name, "namespace": namespace, "address": addresses[namespace],
                "port": f"p{index}", "sshd_pid": None}
        state["hosts"].append(host)
        for suffix in ("host_key", "host_key.pub", "sshd_config", "sshd.pid", "sshd.log"):
            keep(os.path.join(lab_dir, f"{name}.{suffix}"))
        public = ssh.generate_key(os.path.join(lab_dir, f"{name}.host_key"),
                                  f"netprof-lab {name}")
        config = ssh.write_sshd_config(lab_dir, name, host["address"])
        host["sshd_pid"] = ssh.start_sshd(namespace, config,
                                          os.path.join(lab_dir, f"{name}.sshd.log"))
        save_state(state)
        known.append((name, host["address"], public))
        if arguments.rate:
            network.shape(state["switch"], namespace, host["port"], arguments.rate,
                          arguments.direction)
    keep(ssh.write_known_hosts(lab_dir, known))
    keep(ssh.write_ssh_config(lab_dir, state["control"],
                              [(h["name"], h["address"]) for h in state["hosts"]]))
    keep(write_example_hosts(lab_dir, state["hosts"], arguments.netprof))


def write_example_hosts(lab_dir, hosts, netprof):
    """A hosts file for launch.py: h0 publishes, every other host subscribes."""
    path = os.path.join(lab_dir, "hosts.toml")
    with open(path, "w") as f:
        f.write("# Made by scripts/lab/lab.py: h0 publishes, the others subscribe.\n"
                f"netprof = {json.dumps(netprof)}\nport = 40000\n")
        for index, host in enumerate(hosts):
            role = "publisher" if index == 0 else "subscriber"
            f.write(f'\n[[host]]\nname = "{host["name"]}"\nrole = "{role}"\n'
                    f'ssh = "{host["name"]}"\naddress = "{host["address"]}"\n')
    return path


# --- down --------------------------------------------------------------------------------------


def down(lab_dir):
    """Removes what the record says the lab made; nothing to do when there is no record."""
    state = load_state(lab_dir)
    if state is None:
        return False
    for host in state["hosts"]:
        if host.get("sshd_pid"):
            ssh.stop_process(host["sshd_pid"], lab_dir)
    for namespace in state["namespaces"]:
        # Whatever else runs in a namespace the lab made (a netprof a launcher left behind,
        # a session's shell) was started in the lab: end it, by PID, before the namespace goes.
        for pid in network.pids_in(namespace):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for namespace in reversed(state["namespaces"]):
        network.delete_namespace(namespace)
    for path in state["files"]:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    os.unlink(state_path(lab_dir))
    if state.get("dir_created"):
        try:
            os.rmdir(lab_dir)
        except OSError:
            pass  # someone put something else there: leave it
    return True


def lab_host(arguments):
    """(lab record, the host named on the command line)."""
    state = load_state(arguments.dir)
    if state is None:
        raise SetupError(f"no lab in {arguments.dir}")
    host = next((h for h in state["hosts"] if h["name"] == arguments.host), None)
    if host is None:
        raise UsageError(f"no host {arguments.host!r} in the lab: "
                         f"{', '.join(h['name'] for h in state['hosts'])}")
    return state, host


def shape(arguments):
    state, host = lab_host(arguments)
    network.shape(state["switch"], host["namespace"], host["port"], arguments.rate,
                  arguments.direction)


def cable(arguments):
    """The host's bridge port down (its eth0 then has no carrier) or up again: to the rest of
    the lab, and to ssh, the host is gone, while its processes go on."""
    state, host = lab_host(arguments)
    network.run(["ip", "-n", state["switch"], "link", "set", host["port"],
                 "down" if arguments.command == "unplug" else "up"])


def run(arguments):
    if arguments.command == "up":
        state = up(arguments)
        print(f"lab: {len(state['hosts'])} hosts up in {state['dir']}: " + ", ".join(
            f"{h['name']} {h['address']}" for h in state["hosts"]))
        print(f"lab: ssh -F {state['dir']}/ssh_config h0 true; "
              f"launch.py --ssh-config {state['dir']}/ssh_config {state['dir']}/hosts.toml")
    elif arguments.command == "down":
        removed = down(arguments.dir)
        print(f"lab: {'removed' if removed else 'no lab in'} {arguments.dir}")
    elif arguments.command == "shape":
        shape(arguments)
    else:
        cable(arguments)
    return 0


def main(argv):
    # SIGTERM unwinds like Ctrl-C, so a half-built lab is removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    return exit_status("lab", lambda: run(parse_arguments(argv)),
                       {UsageError: 2, SetupError: 3, KeyboardInterrupt: 130})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
