"""netprof on other hosts over OpenSSH, for scripts/tools/launch.py: the ssh and scp command
lines (BatchMode, the user's keys and agent, an optional -F config), and the small POSIX shell
scripts run on each host: check it, start a role recording its PID, stop that PID, fetch a
report, remove the run's files. Nothing but the netprof binary is needed on a host.

Every remote path carries the run's tag, and a PID is signalled only while its command line
still names that tag, so a PID reused since can never be hit. Standard library only.
"""

import dataclasses
import shlex


# ssh's own exit status when it could not connect or lost the connection (or the remote
# process died of a signal): anything else is the remote command's.
SSH_FAILED = 255
# The check script's statuses for what the user must fix on the host.
NO_WORK_DIR = 91
NO_NETPROF = 92
PID_LINE = "netprof-launch-pid "
REPORT_LIMIT_BYTES = 16 * 1024 * 1024   # a report larger than this is not netprof's


@dataclasses.dataclass
class Ssh:
    config: str = None          # ssh -F
    connect_timeout: int = 10   # seconds, ssh's ConnectTimeout
    # A host that stops answering is noticed within interval x count seconds.
    alive_interval: int = 2
    alive_count: int = 3

    def options(self):
        options = ["-F", self.config] if self.config else []
        return options + ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={self.connect_timeout}",
                          "-o", f"ServerAliveInterval={self.alive_interval}",
                          "-o", f"ServerAliveCountMax={self.alive_count}"]

    def command(self, destination, script):
        """ssh argv running `script` with the remote user's shell; no tty, so no signal or
        hang-up reaches the remote process from here: stopping it is stop_script's job."""
        return ["ssh", *self.options(), "-T", destination, script]

    def copy(self, local_path, destination, remote_path):
        """scp argv copying to `remote_path`, quoted for the remote shell that reads it in the
        legacy protocol (scp -O, older clients). The hosts file admits only paths that need no
        quoting, which mean the same in SFTP mode, where no shell reads it."""
        return ["scp", "-q", *self.options(), "--", local_path,
                f"{destination}:{shlex.quote(remote_path)}"]


def run_dir(role, tag):
    """This role's folder on its host: unique to the run (tag) and the role (name)."""
    return f"{role.work_dir.rstrip('/') or '/'}/{tag}/{role.name}"


def make_dir_script(directory):
    return (f"mkdir -p -- {shlex.quote(directory)} || exit {NO_WORK_DIR}")


def check_script(directory, netprof):
    """Makes the run's folder, then prints `netprof --version`; exits NO_NETPROF when there is
    no such executable."""
    d, n = shlex.quote(directory), shlex.quote(netprof)
    return (f"{make_dir_script(directory)}; "
            f"if ! command -v -- {n} >/dev/null 2>&1 || ! [ -x \"$(command -v -- {n})\" ]; "
            f"then echo \"netprof not found: {n}\" >&2; exit {NO_NETPROF}; fi; "
            f"cd {d} && exec {n} --version")


def start_script(directory, netprof, arguments):
    """Records the shell's PID (in a file, and as the first stdout line), then execs netprof in
    its place, so the PID is netprof's."""
    d = shlex.quote(directory)
    return (f"cd {d} && echo $$ > pid && echo \"{PID_LINE}$$\" && "
            f"exec {shlex.join([netprof, *arguments])}")


def stop_script(directory, tag, signal_name):
    """Sends `signal_name` to the PID the role recorded, if that process still names the tag;
    prints 'running' when it did, so the caller knows whether to wait."""
    d, t = shlex.quote(directory), shlex.quote(tag)
    return (f"p=$(cat {d}/pid 2>/dev/null); case \"$p\" in ''|*[!0-9]*) exit 0;; esac; "
            f"if grep -qF -- {t} /proc/$p/cmdline 2>/dev/null; then "
            f"kill -{signal_name} $p 2>/dev/null && echo running; fi; exit 0")


def fetch_script(path):
    """The report, at most one byte over the limit (so an oversized one is seen as such);
    nothing when netprof wrote none."""
    p = shlex.quote(path)
    return f"if [ -f {p} ]; then head -c {REPORT_LIMIT_BYTES + 1} -- {p}; fi"


def remove_script(directory):
    """Removes this role's folder and, when it is the last, the run's folder above it."""
    d = shlex.quote(directory)
    return f"rm -rf -- {d}; rmdir -- \"$(dirname -- {d})\" 2>/dev/null; exit 0"

