"""One multi-host run, for scripts/tools/launch.py: check every host, start every role over
ssh, watch them under a deadline, stop every remote process by the PID it recorded, fetch the
reports and remove the run's files from the hosts. Raises RunFailed (with the launcher's exit
status) for what ends a run early; `stop_all` and `clean_up` are always called by the caller,
so nothing is left running or lying around on any host. Standard library only.
"""

import dataclasses
import os
import subprocess
import time

import netprof_merge as merge
import netprof_output as output
import netprof_remote as remote
from netprof_harness import INTERRUPT_GRACE_SECONDS
from netprof_processes import DeadlineExceeded, Processes

# Exit statuses of launch.py (docs/multi-host.md).
PASSED = 0
TEST_FAILED = 1          # every role ran; netprof says the test failed (exit 1)
BAD_INPUT = 2            # command line, hosts file, or netprof refused its arguments
HOST_UNUSABLE = 3        # before starting: unreachable, no netprof, other version, copy failed
RUN_BROKEN = 4           # a host lost, a role failed or killed, or the deadline passed
INTERRUPTED = 130

POLL_SECONDS = 0.1
PID_DEADLINE_SLACK_S = 5          # beyond ssh's connect timeout, for the first stdout line
STRAGGLER_GRACE_S = 15            # subscribers still running this long after the publisher
BRIEF_SLACK_S = 10                # a check, stop or fetch: connect timeout plus this


class RunFailed(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


@dataclasses.dataclass
class RoleResult:
    exit_code: object = None  # the role's exit status as ssh passed it on; None: never ran
    problem: str = ""         # what went wrong with it, for the user
    report: dict = None
    malformed_report: bool = False  # it wrote one, but not a JSON object we could read


class Run:
    def __init__(self, hosts_file, ssh, tag, out_dir, local_netprof, local_version):
        self.hosts = hosts_file
        self.ssh = ssh
        self.tag = tag
        self.out_dir = out_dir
        self.local_netprof = local_netprof
        self.local_version = local_version
        self.processes = Processes()         # every ssh/scp this run starts
        self.role_processes = {}             # role name -> the ssh running it
        self.reached = []                    # roles whose host has this run's folder
        self.gone = set()                    # ssh destinations lost during the run
        self.cleaned = set()                 # roles whose folder is already removed
        self.results = {role.name: RoleResult() for role in hosts_file.roles}
        self.brief_deadline = ssh.connect_timeout + BRIEF_SLACK_S

    def dir(self, role):
        return remote.run_dir(role, self.tag)

    def netprof_on_host(self, role):
        return f"{self.dir(role)}/netprof" if role.copy_binary else role.netprof

    # --- before starting: every host must be usable -------------------------------------------

    def check_hosts(self):
        """Every host reachable, with netprof (copied first when asked) of the local version.
        Checks run in parallel; RunFailed(HOST_UNUSABLE) lists every host that failed."""
        copying = [role for role in self.hosts.roles if role.copy_binary]
        if copying:
            self._in_parallel(copying, lambda role: self.ssh.command(
                role.ssh, remote.make_dir_script(self.dir(role))), self._made_dir)
            self._raise_problems()
            self._in_parallel(copying, lambda role: self.ssh.copy(
                self.local_netprof, role.ssh, self.netprof_on_host(role)), self._copied)
            self._raise_problems()
        self._in_parallel(self.hosts.roles, lambda role: self.ssh.command(
            role.ssh, remote.check_script(self.dir(role), self.netprof_on_host(role))),
            self._checked)
        self._raise_problems()

    def _in_parallel(self, roles, argv_of, judge):
        started = [(role, self.processes.start(argv_of(role), own_group=True, errors="replace"))
                   for role in roles]
        # One deadline for them all: twenty hung hosts must not take twenty deadlines.
        end = time.monotonic() + self.brief_deadline
        for role, process in started:
            try:
                done = self.processes.finish(process,
                                             deadline_s=max(0.1, end - time.monotonic()))
                code, out, err = done.returncode, done.stdout, done.stderr
            except DeadlineExceeded:
                code, out, err = remote.SSH_FAILED, "", f"no answer within " \
                                                        f"{self.brief_deadline} s"
            judge(role, code, out, err)

    def _unreachable(self, role, err):
        return (f"host {role.name!r} ({role.ssh}) is unreachable over ssh: "
                f"{all_lines(err) or 'ssh failed'}")

    def _made_dir(self, role, code, out, err):
        if code == remote.SSH_FAILED:
            self.results[role.name].problem = self._unreachable(role, err)
        elif code != 0:
            self.results[role.name].problem = (f"host {role.name!r}: cannot make "
                                               f"{self.dir(role)}")
        else:
            self.reached.append(role)

    def _copied(self, role, code, out, err):
        if code != 0:
            self.results[role.name].problem = (f"host {role.name!r}: copying "
                                               f"{self.local_netprof} with scp failed: "
                                               f"{last_line(err) or f'scp exited {code}'}")

    def _checked(self, role, code, out, err):
        result = self.results[role.name]
        if code == remote.SSH_FAILED:
            result.problem = self._unreachable(role, err)
            return
        if role not in self.reached and code != remote.NO_WORK_DIR:
            self.reached.append(role)
        if code == remote.NO_WORK_DIR:
            result.problem = f"host {role.name!r}: cannot make {self.dir(role)}"
        elif code == remote.NO_NETPROF or code in (126, 127):
            result.problem = (f"host {role.name!r} ({role.ssh}) has no netprof at "
                              f"{self.netprof_on_host(role)} (install it, set netprof = "
                              "\"PATH\" in the hosts file, or copy_binary = true)")
        elif code != 0:
            result.problem = (f"host {role.name!r}: {self.netprof_on_host(role)} --version "
                              f"exited {code}: {last_line(err)}")
        elif first_line(out) != self.local_version:
            result.problem = (f"host {role.name!r} runs another netprof: "
                              f"{first_line(out)[:200]!r}, here {self.local_version!r} "
                              "(the same version and commit on every host, or copy_binary "
                              "= true)")

    def _raise_problems(self):
        problems = [r.problem for r in self.results.values() if r.problem]
        if problems:
            raise RunFailed(HOST_UNUSABLE, "\n".join(problems))

    # --- the run ------------------------------------------------------------------------------

    def start_roles(self, arguments_of):
        """Subscribers first, then, once each has exec'd netprof (its PID line arrived), the
        publishers. RunFailed(RUN_BROKEN) if a role does not get going."""
        for group in (self.hosts.subscribers, self.hosts.publishers):
            for role in group:
                self._start(role, arguments_of(role))
            for role in group:
                self._wait_for_pid(role)

    def _start(self, role, arguments):
        script = remote.start_script(self.dir(role), self.netprof_on_host(role),
                                     [*arguments, "--json", f"{self.dir(role)}/report.json"])
        stdout = output.open_log(self.local_path(role, "stdout"))
        stderr = output.open_log(self.local_path(role, "stderr"))
        try:
            self.role_processes[role.name] = self.processes.start(
                self.ssh.command(role.ssh, script), own_group=True, stdout=stdout,
                stderr=stderr)
        finally:
            stdout.close()
            stderr.close()

    def local_path(self, role, kind):
        return os.path.join(self.out_dir, f"{role.name}.{kind}")

    def _wait_for_pid(self, role):
        deadline = time.monotonic() + self.ssh.connect_timeout + PID_DEADLINE_SLACK_S
        process = self.role_processes[role.name]
        while time.monotonic() < deadline:
            if read_pid(self.local_path(role, "stdout")) is not None:
                return
            if process.poll() is not None:
                break
            time.sleep(POLL_SECONDS / 2)
        code = process.poll()
        raise RunFailed(RUN_BROKEN, f"{role.role} {role.name!r} on {role.ssh} did not start"
                        + (f" (ssh exited {code})" if code is not None else "")
                        + f": {last_line(read_text(self.local_path(role, 'stderr')))}")

    def watch(self, deadline_s):
        """Waits for every role. Ends at once (RunFailed) when a role is lost or fails to run,
        or at the deadline; returns when all have exited."""
        started = time.monotonic()
        publisher_done_at = None
        while True:
            running = 0
            for role in self.hosts.roles:
                code = self.role_processes[role.name].poll()
                if code is None:
                    running += 1
                    continue
                self.results[role.name].exit_code = code
                self._judge_exit(role, code)
                if role.index == 0 and publisher_done_at is None:
                    publisher_done_at = time.monotonic()
            if not running:
                return
            now = time.monotonic()
            if now - started > deadline_s:
                raise RunFailed(RUN_BROKEN, f"the run passed its deadline of {deadline_s:.0f} s"
                                " (--deadline): every role stopped")
            if publisher_done_at and now - publisher_done_at > STRAGGLER_GRACE_S:
                late = [r.name for r in self.hosts.subscribers
                        if self.role_processes[r.name].poll() is None]
                raise RunFailed(RUN_BROKEN, f"subscriber {', '.join(late)} still running "
                                f"{STRAGGLER_GRACE_S} s after the publisher ended: stopped")
            time.sleep(POLL_SECONDS)

    def _judge_exit(self, role, code):
        if code in (0, 1):
            return
        said = last_line(read_text(self.local_path(role, "stderr")))
        where = f"{role.role} {role.name!r} on {role.ssh}"
        if code == remote.SSH_FAILED:
            raise RunFailed(RUN_BROKEN, f"{where}: lost (the connection dropped, the host went "
                            f"away, or netprof was killed){': ' + said if said else ''}")
        if code == 2:
            raise RunFailed(BAD_INPUT, f"{where}: netprof refused its arguments: {said}")
        raise RunFailed(RUN_BROKEN, f"{where}: netprof exited {code}"
                        + (f": {said}" if said else ""))

    # --- stopping and cleaning up -------------------------------------------------------------

    def stop_all(self):
        """SIGINT to every role still running on its host (netprof then writes a partial
        report), SIGKILL to any still there after the grace, then ends the local ssh clients.
        A role whose ssh never printed its PID is stopped too: the PID file is on the host."""
        live = [role for role in self.hosts.roles if role.name in self.role_processes
                and self.role_processes[role.name].poll() is None]
        # ssh gone but the host may not be: a dropped connection leaves netprof running there.
        lost = [role for role in self.hosts.roles if role.name in self.role_processes
                and self.role_processes[role.name].poll() == remote.SSH_FAILED]
        if not live and not lost:
            return
        self._signal(live + lost, "INT")
        deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
        while time.monotonic() < deadline and any(
                self.role_processes[r.name].poll() is None for r in live):
            time.sleep(POLL_SECONDS)
        still = [r for r in live + lost if self.role_processes[r.name].poll() is None
                 or r in lost]
        still = [r for r in still if r.ssh not in self.gone]
        if still:
            self._signal(still, "KILL")
        for role in live:
            process = self.role_processes[role.name]
            try:
                process.wait(timeout=INTERRUPT_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                pass  # kill_all ends the client; its remote process was killed above
            if self.results[role.name].exit_code is None:
                self.results[role.name].exit_code = process.poll()

    def _signal(self, roles, signal_name):
        def judge(role, code, out, err):
            if code == remote.SSH_FAILED:
                # Gone: nothing more can be done there (no KILL, fetch or clean-up to wait for).
                self.gone.add(role.ssh)
                result = self.results[role.name]
                result.problem = result.problem or (
                    f"host {role.name!r} ({role.ssh}) unreachable when stopping its role: "
                    f"whatever runs there ends by itself (--idle-timeout, --wait); "
                    f"{self.dir(role)} is left there")
        self._in_parallel(roles, lambda role: self.ssh.command(
            role.ssh, remote.stop_script(self.dir(role), self.tag, signal_name)), judge)

    def fetch_reports(self):
        """Each role's --json report, parsed defensively; kept locally as NAME.json. The same
        ssh removes the role's folder (every role has stopped by now): one round trip less."""
        def judge(role, code, out, err):
            result = self.results[role.name]
            if code != remote.SSH_FAILED:
                self.cleaned.add(role.name)
            if code != 0:
                result.problem = result.problem or f"report not fetched: {last_line(err)}"
                return
            report, why = merge.parse_report(out, remote.REPORT_LIMIT_BYTES)
            result.report = report
            if why:
                result.problem = result.problem or why
                result.malformed_report = bool(out.strip())
            else:
                output.write_text(self.local_path(role, "json"), out)
        roles = [r for r in self.hosts.roles if r.name in self.role_processes
                 and r.ssh not in self.gone]
        self._in_parallel(roles, lambda role: self.ssh.command(
            role.ssh, remote.fetch_script(f"{self.dir(role)}/report.json") + "; "
            + remote.remove_script(self.dir(role))), judge)

    def clean_up(self):
        """Removes the run's folder (reports, copied binary, PID file) from every host reached,
        then ends any ssh or scp client still running."""
        try:
            reachable = [role for role in self.reached if role.ssh not in self.gone
                         and role.name not in self.cleaned]
            if reachable:
                self._in_parallel(reachable, lambda role: self.ssh.command(
                    role.ssh, remote.remove_script(self.dir(role))),
                    lambda role, code, out, err: None)
        finally:
            self.processes.kill_all()


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def read_pid(stdout_path):
    line = first_line(read_text(stdout_path))
    if line.startswith(remote.PID_LINE) and line[len(remote.PID_LINE):].isdigit():
        return int(line[len(remote.PID_LINE):])
    return None


def first_line(text):
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # Printable only, and short: it came from another host.
    return "".join(c for c in lines[-1] if c.isprintable())[:300] if lines else ""


def all_lines(text):
    """ssh's reasons on one line: the cause often comes before its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    joined = "; ".join(dict.fromkeys(lines))  # once each, in order
    return "".join(c for c in joined if c.isprintable())[:500]
