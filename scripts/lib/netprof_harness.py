"""How scripts and end-to-end tests run netprof: each transport's loopback arguments (asked of
the binary, `netprof --list-transports --json`), and one run of a publisher and its subscribers
under a deadline. Shared by scripts/tools (sweep, knee, smoke, soak) and tests/e2e. What the
runs need on the host (namespace, RouDi, brokers) is netprof_services'; starting and stopping
processes and reading their reports, netprof_processes'. Standard library only.

Every process is started here as a separate netprof (never --local-pair), so callers see
exactly what two terminals would: each role's exit status and JSON report.
"""

import argparse
import dataclasses
import json
import os
import shlex
import shutil
import signal
import subprocess
import time

import netprof_output as output
from netprof_processes import read_report
from netprof_services import SetupError, service_options

DEFAULT_QUEUE_BYTES = 1_000_000
# How long each side waits for its peer (--wait); the deadline of a run allows for it.
PEER_WAIT_SECONDS = 10
# After SIGINT, netprof prints a partial report and exits; this long, then SIGKILL.
INTERRUPT_GRACE_SECONDS = 3
# How long asking the binary about itself may take.
QUERY_TIMEOUT_SECONDS = 30


# ---------------------------------------------------------------------------------------------
# Which binary, and what it says about itself


def default_netprof():
    """The netprof a tool runs when not given --netprof: the one on PATH (an installed
    package's), else the one beside an installed tool (PREFIX/bin, this file being in
    PREFIX/share/netprof/lib), else the checkout's build/netprof, for developers. Worked out
    from where this file is, so no installed file names a build folder."""
    on_path = shutil.which("netprof")
    if on_path:
        return on_path
    here = os.path.dirname(os.path.realpath(__file__))
    beside = os.path.join(here, "..", "..", "..", "bin", "netprof")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return os.path.normpath(beside)
    return os.path.normpath(os.path.join(here, "..", "..", "build", "netprof"))



def describe(netprof, subscribers=1, options=()):
    """`netprof --list-transports --json`: the build's transports, each with its loopback
    arguments for a publisher and `subscribers` subscribers (fresh ports and names on every
    call), derived from `options` where they name the transport's endpoints."""
    command = [netprof, "--list-transports", "--json", "--subscribers", str(subscribers),
               *[str(option) for option in options]]
    try:
        listing = subprocess.run(command, capture_output=True, text=True,
                                 timeout=QUERY_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SetupError(f"cannot run {shlex.join(command)}: {error}") from error
    if listing.returncode != 0:
        raise SetupError(f"{shlex.join(command)} exited {listing.returncode}: "
                         f"{listing.stderr.strip()}")
    try:
        return json.loads(listing.stdout)
    except ValueError as error:
        raise SetupError(f"{shlex.join(command)} printed no JSON: {error}") from error


def wire_header_bytes(netprof):
    """Bytes of netprof's own header in front of every payload (-s excludes it)."""
    return describe(netprof)["wire_header_bytes"]


# ---------------------------------------------------------------------------------------------
# Transports and their loopback arguments


@dataclasses.dataclass(frozen=True)
class Setup:
    """One way of running a transport on this host."""
    name: str              # what the user types: a transport name, or a variant such as zmq-ipc
    transport: str         # the registry name netprof knows
    needs_namespace: bool  # multicast/broadcast: only inside a private network namespace
    description: str
    # Options that pick the variant's endpoints, given the run's unique name and work folder.
    variant_options: object = None


def _ipc_endpoint(unique_name, work_dir):
    return ["--zmq", f"ipc://{os.path.join(work_dir, unique_name)}.ipc"]


# Variants of a transport that differ only in the kind of endpoint the binary is asked for.
VARIANTS = {"zmq-ipc": ("zmq", "ZeroMQ ipc:// socket files, unique per run", _ipc_endpoint)}


def list_transports(netprof):
    """Setups of every transport this build has, in netprof's order, then their variants."""
    transports = describe(netprof)["transports"]
    setups = [Setup(t["name"], t["name"], t["needs_private_netns"], t["summary"])
              for t in transports]
    by_name = {t["name"]: t for t in transports}
    for name, (transport, description, options) in VARIANTS.items():
        if transport in by_name:
            setups.append(Setup(name, transport, by_name[transport]["needs_private_netns"],
                                description, options))
    return setups


def resolve_setups(requested, setups):
    """Setups for the names the user gave; SetupError naming the unknown ones."""
    known = {setup.name: setup for setup in setups}
    unknown = [name for name in requested if name not in known]
    if unknown:
        raise SetupError(f"unknown transport {', '.join(unknown)}: this netprof has "
                         f"{', '.join(known)} (see netprof --list-transports)")
    return [known[name] for name in requested]


def default_setups(setups):
    """One setup per transport of the build (variants only when asked for)."""
    return [setup for setup in setups if setup.variant_options is None]


@dataclasses.dataclass
class Endpoints:
    publisher: list      # transport options of the publisher
    subscribers: list    # one list of transport options per subscriber
    leftovers: list      # files a killed run may leave behind, removed after the run


def loopback_endpoints(netprof, setup, subscribers, unique_name, work_dir):
    """Transport options for a publisher and `subscribers` subscribers on this host, as the
    binary gives them. `unique_name` keeps runs apart: a shm segment or ipc socket file left by
    a killed run must not be found by the next one."""
    options = (setup.variant_options(unique_name, work_dir) if setup.variant_options
               else service_options(setup.transport))
    described = describe(netprof, subscribers, options)
    for transport in described["transports"]:
        if transport["name"] == setup.transport:
            loopback = transport["loopback"]
            return Endpoints(loopback["publisher"], loopback["subscribers"],
                             loopback.get("files", []))
    raise SetupError(f"{netprof} has no {setup.transport} transport")


def remove_leftovers(paths):
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def queue_length_for(payload_size):
    """-q that carries one payload with room to spare: socket buffers, or a shm ring in which a
    message may take at most half."""
    return max(DEFAULT_QUEUE_BYTES, 4 * payload_size)


def tool_arguments(description, epilog, default_out, out_contents):
    """An argument parser with the options every tool has: --netprof and --out."""
    parser = argparse.ArgumentParser(description=description, epilog=epilog)
    parser.add_argument("--netprof", default=default_netprof(),
                        help="netprof binary (default: netprof on PATH, else this checkout's "
                             "build/netprof; now %(default)s)")
    parser.add_argument("--out", default=default_out,
                        help=f"folder for {out_contents} (default: %(default)s)")
    return parser


# ---------------------------------------------------------------------------------------------
# One run: a publisher and its subscribers


@dataclasses.dataclass
class RunSpec:
    setup: Setup
    mode: str = "stream"
    payload_size: int = 128
    subscribers: int = 1
    send_hz: float = 0.0
    duration_seconds: float = 1.0
    warmup_seconds: float = 0.2
    queue_length: int = DEFAULT_QUEUE_BYTES
    extra_args: tuple = ()  # given to every process, e.g. ("--wait-strategy", "spin")
    deadline: float = None  # seconds; None: deadline_seconds() works it out

    def deadline_seconds(self):
        """Waiting for peers, warm-up, the measured phase, the end handshake, with slack for a
        loaded 2-core machine."""
        if self.deadline:
            return self.deadline
        return PEER_WAIT_SECONDS + self.warmup_seconds + self.duration_seconds + 20


@dataclasses.dataclass
class RunOutcome:
    exit_code: int                 # the publisher's; negative: killed by that signal
    subscriber_exit_codes: list
    report: dict                   # the publisher's JSON report, None if it wrote none
    subscriber_reports: list       # each subscriber's, None where missing
    reason: str                    # why it failed, "" when it succeeded
    elapsed_seconds: float
    json_files: list               # every JSON file written, publisher first

    @property
    def ok(self):
        return not self.reason


def publisher_command(spec, endpoints, json_path):
    command = ["-i", "0", *endpoints.publisher, "--subscribers", spec.subscribers,
               "-t", spec.duration_seconds, "--warmup-time", spec.warmup_seconds,
               "--mode", spec.mode, "--send-hz", spec.send_hz]
    return command + common_options(spec, json_path)


def subscriber_command(spec, index, endpoints, json_path):
    return ["-i", index, *endpoints.subscribers[index - 1]] + common_options(spec, json_path)


def common_options(spec, json_path):
    # Subscribers get -s and -q too: some transports check the size before the publisher is
    # there to tell them (shm).
    return ["-s", spec.payload_size, "-q", spec.queue_length, "--wait", PEER_WAIT_SECONDS,
            "--quiet", "--json", json_path, *spec.extra_args]


def run(netprof, spec, out_dir, stem, prefix=(), work_dir=None, monitor=None):
    """Starts the subscribers, then the publisher, each as its own process; waits for all of
    them until the deadline, then interrupts and kills what is left by PID.

    `monitor`, when given, has sample(processes), called every
    monitor.interval_seconds while any process runs (the publisher first in the list).

    Writes STEM.pub.json and STEM.subN.json (and STEM.*.stderr when a process said something)
    into out_dir. Never raises for a failed run: the failure is in the outcome.
    """
    work_dir = work_dir or out_dir
    endpoints = loopback_endpoints(netprof, spec.setup, spec.subscribers,
                                   f"{stem}-{os.getpid()}", work_dir)
    json_paths = [os.path.join(out_dir, f"{stem}.pub.json")] + [
        os.path.join(out_dir, f"{stem}.sub{i}.json") for i in range(1, spec.subscribers + 1)]
    for path in json_paths:
        remove_leftovers([path])  # a stale report must not pass for this run's
    started = time.monotonic()
    processes = []
    try:
        for index in range(1, spec.subscribers + 1):
            processes.append(start(netprof, prefix, subscriber_command(
                spec, index, endpoints, json_paths[index]), out_dir, f"{stem}.sub{index}"))
        processes.insert(0, start(netprof, prefix, publisher_command(
            spec, endpoints, json_paths[0]), out_dir, f"{stem}.pub"))
        timed_out = wait_all(processes, started + spec.deadline_seconds(), monitor)
    finally:
        stop_stragglers(processes)
        remove_leftovers(endpoints.leftovers)
    codes = [process.returncode for process in processes]
    reports = [read_report(path) for path in json_paths]
    stderr_texts = [finish_stderr(process) for process in processes]
    reason = failure_reason(codes, reports, stderr_texts, timed_out, spec.deadline_seconds())
    return RunOutcome(exit_code=codes[0],
                      subscriber_exit_codes=codes[1:], report=reports[0],
                      subscriber_reports=reports[1:], reason=reason,
                      elapsed_seconds=time.monotonic() - started,
                      json_files=[path for path, report in zip(json_paths, reports) if report])


def start(netprof, prefix, arguments, out_dir, stem):
    argv = [*prefix, netprof, *[str(a) for a in arguments]]
    stderr_path = os.path.join(out_dir, f"{stem}.stderr")
    stderr_file = output.open_log(stderr_path)
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=stderr_file)
    stderr_file.close()  # the child has its own descriptor
    process.stderr_path = stderr_path
    return process


def wait_all(processes, deadline, monitor=None):
    """True if the deadline passed before every process had exited."""
    if monitor is not None:
        while time.monotonic() < deadline and any(p.poll() is None for p in processes):
            monitor.sample(processes)
            time.sleep(min(monitor.interval_seconds, max(0.0, deadline - time.monotonic())))
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return True
    return False


def stop_stragglers(processes):
    """SIGINT first (netprof then writes a partial report), SIGKILL if that is not enough."""
    alive = [process for process in processes if process.poll() is None]
    for process in alive:
        process.send_signal(signal.SIGINT)
    deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
    for process in alive:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def finish_stderr(process):
    """What the process wrote on stderr; the file is kept only when it is not empty."""
    try:
        with open(process.stderr_path) as f:
            text = f.read()
    except OSError:
        return ""
    if not text.strip():
        remove_leftovers([process.stderr_path])
    return text


def failure_reason(codes, reports, stderr_texts, timed_out, deadline_seconds):
    """One line saying why the run failed, "" if it succeeded. The publisher's own words first:
    netprof names the problem (e.g. a payload too large for the transport) on stderr, or in
    its report's problems."""
    if timed_out:
        return (f"timed out after {deadline_seconds:.0f} s (stragglers interrupted, then killed); "
                + (last_words(stderr_texts[0], reports[0]) or "no message"))
    roles = ["publisher"] + [f"subscriber {i}" for i in range(1, len(codes))]
    for role, code, report, text in zip(roles, codes, reports, stderr_texts):
        if code != 0:
            words = last_words(text, report)
            return f"{role} exited {code}" + (f": {words}" if words else "")
    return ""


def last_words(stderr_text, report):
    if report and report.get("result", {}).get("problems"):
        return "; ".join(report["result"]["problems"])
    lines = [line.strip() for line in stderr_text.splitlines() if line.strip()]
    if lines:
        return lines[-1].removeprefix("netprof: ")
    return ""
