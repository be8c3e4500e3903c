"""The lab's OpenSSH: a host key per lab host, one user key the launcher logs in with, one sshd
per host (Debian's openssh-server, run inside the host's namespace on its lab address only),
and the known_hosts and ssh_config files `launch.py --ssh-config` is pointed to. Every file
lives in the lab directory, so `down` removes every key the lab made. Standard library only.
"""

import os
import shlex
import signal
import subprocess
import time

from lab_network import SetupError, run

SSHD = "/usr/sbin/sshd"
PRIVILEGE_SEPARATION_DIR = "/run/sshd"   # sshd refuses to start without it
SSHD_READY_DEADLINE_S = 10
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_relay.py")


def generate_key(path, comment):
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path])
    with open(path + ".pub") as f:
        return f.read().strip()


def write_sshd_config(lab_dir, host, address):
    """sshd for one lab host: key logins only, as root (the lab's hosts are namespaces of
    this machine, so root inside them is root here anyway), sftp for scp."""
    path = os.path.join(lab_dir, f"{host}.sshd_config")
    with open(path, "w") as f:
        f.write(f"""# sshd of lab host {host}: made by scripts/lab/lab.py, removed by `lab.py down`.
ListenAddress {address}
Port 22
HostKey {os.path.join(lab_dir, host + ".host_key")}
PidFile {os.path.join(lab_dir, host + ".sshd.pid")}
AuthorizedKeysFile {os.path.join(lab_dir, "authorized_keys")}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
PrintMotd no
X11Forwarding no
AllowTcpForwarding no
Subsystem sftp internal-sftp
""")
    return path


def start_sshd(namespace, config, log_path):
    """Starts sshd in the foreground (-D) inside `namespace`, in a session of its own so it
    outlives `lab.py up`; `ip netns exec` execs in place, so the PID is sshd's own. Returns
    the PID once sshd says it listens."""
    if not os.path.isdir(PRIVILEGE_SEPARATION_DIR):
        os.makedirs(PRIVILEGE_SEPARATION_DIR, mode=0o755, exist_ok=True)
    if not os.access(SSHD, os.X_OK):
        raise SetupError(f"{SSHD} not found: install openssh-server "
                         "(scripts/setup/install_deps.sh)")
    with open(log_path, "w") as log:
        process = subprocess.Popen(["ip", "netns", "exec", namespace, SSHD, "-D", "-e", "-f",
                                    config], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                   start_new_session=True)
    deadline = time.monotonic() + SSHD_READY_DEADLINE_S
    while time.monotonic() < deadline:
        with open(log_path) as f:
            said = f.read()
        if "Server listening" in said:
            return process.pid
        if process.poll() is not None:
            raise SetupError(f"sshd in {namespace} exited {process.returncode}: "
                             f"{said.strip()}")
        time.sleep(0.05)
    stop_process(process.pid, config)
    raise SetupError(f"sshd in {namespace} not listening within {SSHD_READY_DEADLINE_S} s")


def is_ours(pid, marker):
    """The process `pid` still runs a command line naming `marker` (the lab's own files): a
    PID recorded earlier may since belong to someone else."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return marker.encode() in f.read()
    except OSError:
        return False


def stop_process(pid, marker):
    """SIGTERM, then SIGKILL, to `pid` if it is still the process we started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not is_ours(pid, marker):
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        for _ in range(40):
            if not is_ours(pid, marker) or _reaped(pid):
                return
            time.sleep(0.05)


def _reaped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")  # a zombie: dead, not reaped
    except (OSError, IndexError):
        return True


def write_known_hosts(lab_dir, entries):
    """entries: (alias, address, host public key). Both names, so `ssh h1` and
    `ssh 10.x.y.2` check the same key."""
    path = os.path.join(lab_dir, "known_hosts")
    with open(path, "w") as f:
        for alias, address, public_key in entries:
            key_type, key = public_key.split()[:2]
            f.write(f"{alias},{address} {key_type} {key}\n")
    return path


def write_ssh_config(lab_dir, control_namespace, aliases):
    """aliases: (alias, address). Every connection goes through the relay in the control
    namespace; BatchMode, the lab's key and known_hosts only, strict host key checking."""
    path = os.path.join(lab_dir, "ssh_config")
    # -S: no site packages, a faster start for every connection.
    relay = shlex.join(["ip", "netns", "exec", control_namespace, "/usr/bin/python3", "-S",
                        RELAY])
    with open(path, "w") as f:
        f.write("# Made by scripts/lab/lab.py; use with `ssh -F THIS h1` or "
                "`launch.py --ssh-config THIS`.\n")
        for alias, address in aliases:
            f.write(f"Host {alias}\n  HostName {address}\n")
        f.write(f"""Host *
  User root
  Port 22
  IdentityFile {os.path.join(lab_dir, "id_ed25519")}
  IdentitiesOnly yes
  UserKnownHostsFile {os.path.join(lab_dir, "known_hosts")}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  CheckHostIP no
  BatchMode yes
  LogLevel ERROR
  ProxyCommand {relay} %h %p
""")
    return path
