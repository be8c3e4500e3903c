"""Processes started under a deadline and stopped by PID, and the JSON reports they leave:
what the tools (scripts/tools) and the end-to-end tests both need of a running netprof.
Standard library only.
"""

import dataclasses
import os
import signal
import socket
import subprocess
import time

import netprof_input as loader


def terminate(process, seconds):
    """A helper process (RouDi, the broker) asked to stop, so it removes what it made, and
    killed if it has not within `seconds`; reaped either way."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def read_json(path):
    """The JSON document at `path`, or None when it is empty or is not JSON netprof_input
    accepts (it says what)."""
    try:
        text = loader.read_text(path)
        return loader.parse_json(text, path) if text.strip() else None
    except loader.InputError:
        return None


def read_report(path):
    """The JSON report, or None: netprof leaves an empty file when it stops before running,
    and a file that is not a report it could have written (netprof_input says what) is none
    either, so the tools' figures never trip over it."""
    report = read_json(path)
    if isinstance(report, dict) and "publisher" in report:
        try:
            loader.check_publisher_report(report, path)
        except loader.InputError:
            return None
    return report


# ---------------------------------------------------------------------------------------------
# Processes under a deadline, for tests: tracked by PID, killed in cleanup


def free_port(kind=socket.SOCK_DGRAM):
    """A loopback port the kernel just gave out, free again on return (a small race we accept)."""
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclasses.dataclass
class OnTerminal:
    returncode: int  # None when it was killed at its deadline
    terminal: str  # what it wrote to its stderr, the terminal
    stdout: str


def run_on_terminal(argv, deadline_s):
    """Runs argv with stderr on a pseudo-terminal (netprof's status line draws only there) and
    stdout captured; kills it by its PID at the deadline."""
    import pty  # noqa: PLC0415 (POSIX only, and only these callers need it)
    import select  # noqa: PLC0415

    controller, terminal = pty.openpty()
    process = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + deadline_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    chunk = b""
                seen += chunk
                if not chunk and process.poll() is not None:
                    break
            elif process.poll() is not None:
                break
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()
            status = None
        else:
            status = process.returncode
    stdout = process.stdout.read().decode(errors="replace")
    process.stdout.close()
    return OnTerminal(status, seen.decode(errors="replace"), stdout)


@dataclasses.dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    json: dict  # the report written to --json, None when there is none


class DeadlineExceeded(Exception):
    """A process did not finish within its deadline (it was killed)."""


class Processes:
    """Every process started through it, killed by PID (or by process group, for the ones that
    lead a group of their own) when kill_all() runs, so a hung run cannot outlive its caller."""

    def __init__(self):
        self._processes = []
        self._group_leaders = []

    def start(self, argv, own_group=False, stderr=subprocess.PIPE, cwd=None,
              stdout=subprocess.PIPE, errors=None):
        """Starts argv with stdout and stderr captured as text, unless told otherwise (a file,
        for a process that runs longer than anyone reads its pipe). errors="replace" for
        output that may not be text (another host's)."""
        process = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL,
                                   stdout=stdout, stderr=stderr, text=True, errors=errors,
                                   start_new_session=own_group, cwd=cwd)
        self._processes.append(process)
        if own_group:
            self._group_leaders.append(process)
        return process

    def finish(self, process, json_path=None, deadline_s=60):
        """Waits for `process`; DeadlineExceeded (after killing it) when it takes longer."""
        try:
            stdout, stderr = process.communicate(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise DeadlineExceeded(f"did not finish within {deadline_s} s: {process.args}")
        return Finished(process.returncode, stdout, stderr,
                        read_report(json_path) if json_path else None)

    def kill_all(self):
        for process in self._processes:
            if process in self._group_leaders:
                try:
                    os.killpg(process.pid, signal.SIGKILL)  # and whatever it started
                except ProcessLookupError:
                    pass
            elif process.poll() is None:
                process.kill()
            try:
                process.communicate(timeout=10)  # reaps it and closes its pipes
            except (subprocess.TimeoutExpired, ValueError, OSError):
                pass
        self._processes.clear()
        self._group_leaders.clear()
