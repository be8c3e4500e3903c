"""How scripts and end-to-end tests run netprof: each transport's loopback arguments (asked of
the binary, `netprof --list-transports --json`), the private network namespace that multicast
and broadcast need, processes started under a deadline and stopped by PID, and JSON reports
read back. Shared by scripts/tools (sweep, knee, smoke, soak) and tests/e2e. Standard library only.

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
import socket
import subprocess
import tempfile
import time

import netprof_input as loader
import netprof_output as output

DEFAULT_QUEUE_BYTES = 1_000_000
# How long each side waits for its peer (--wait); the deadline of a run allows for it.
PEER_WAIT_SECONDS = 10
# After SIGINT, netprof prints a partial report and exits; this long, then SIGKILL.
INTERRUPT_GRACE_SECONDS = 3
# How long asking the binary about itself may take.
QUERY_TIMEOUT_SECONDS = 30


class SetupError(Exception):
    """A transport name or environment problem the user has to fix (exit status 2)."""


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


# ---------------------------------------------------------------------------------------------
# The private network namespace for multicast and broadcast


def namespace_unavailable_reason():
    """None when this process can make network namespaces; else why not, for the user."""
    if os.geteuid() != 0:
        return "needs root to create a private network namespace (ip netns add)"
    if not any(os.access(os.path.join(d, "ip"), os.X_OK) for d in ("/usr/sbin", "/sbin", "/bin",
                                                                      "/usr/bin")):
        return "the ip command (iproute2) is not installed"
    return None


class NetworkNamespace:
    """A network namespace with only `lo`, up, and multicast routed to it.

    Multicast and broadcast traffic then never leaves this host and nothing else on the host
    hears it. Made once per sweep and deleted at the end, even when the sweep fails.
    """

    def __init__(self, name):
        self.name = name
        self.created = False

    def create(self):
        for command in (["ip", "netns", "add", self.name],
                        ["ip", "-n", self.name, "link", "set", "lo", "up"],
                        ["ip", "-n", self.name, "route", "add", "224.0.0.0/4", "dev", "lo"]):
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                self.delete()
                raise SetupError(f"{shlex.join(command)} failed: {done.stderr.strip()}")
            self.created = True

    def delete(self):
        if self.created:
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)
            self.created = False

    def command_prefix(self):
        # `ip netns exec` enters the namespace and execs the command: the PID we get is
        # netprof's own, so killing it by PID kills netprof.
        return ["ip", "netns", "exec", self.name]

    def __enter__(self):
        self.create()
        return self

    def __exit__(self, *exc):
        self.delete()


def namespace_for(setups, tool):
    """(namespace, None) when a setup needs a private namespace and one was made, named after
    the tool and this process; (None, reason) when one is needed but cannot be made;
    (None, None) when none is needed. The caller deletes the namespace."""
    if not any(setup.needs_namespace for setup in setups):
        return None, None
    reason = namespace_unavailable_reason()
    if reason is not None:
        return None, reason
    namespace = NetworkNamespace(f"netprof-{tool}-{os.getpid()}")
    try:
        namespace.create()
    except SetupError as error:
        return None, str(error)
    return namespace, None


# ---------------------------------------------------------------------------------------------
# iceoryx's RouDi, which the iceoryx transport's role processes need on this host

# Where iceoryx 2.0's RouDi answers: a Unix-domain datagram socket (IOX_UDS_SOCKET_PATH_PREFIX
# and IPC_CHANNEL_ROUDI_NAME, which transports/iceoryx/roudi.cpp asks the same way).
ROUDI_SOCKET = "/tmp/roudi"
ROUDI_START_SECONDS = 10
# On SIGTERM RouDi removes its files in /dev/shm and /tmp; this long, then SIGKILL.
ROUDI_STOP_SECONDS = 5


def roudi_answers():
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(ROUDI_SOCKET)
            return True
        except OSError:
            return False


class RouDi:
    """The user's RouDi when one answers, else one of our own, started here and stopped by PID
    at the end, as netprof --local-pair does for itself (the tools run role processes, which
    never start one: docs/transport-iceoryx.md)."""

    def __init__(self):
        self.process = None

    def start(self):
        if roudi_answers():
            return
        try:
            self.process = subprocess.Popen(["iox-roudi", "--kill-delay", "2"],
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        except OSError as error:
            raise SetupError(f"cannot start iox-roudi for the iceoryx transport: {error} "
                             f"(apt-get install iceoryx)") from error
        deadline = time.monotonic() + ROUDI_START_SECONDS
        while not roudi_answers():
            code = self.process.poll()
            if code is not None:
                self.process = None
                raise SetupError(f"iox-roudi exited with status {code} before it answered on "
                                 f"{ROUDI_SOCKET} (another user's RouDi holding its lock?)")
            if time.monotonic() > deadline:
                self.stop()
                raise SetupError(f"iox-roudi did not answer on {ROUDI_SOCKET} within "
                                 f"{ROUDI_START_SECONDS} s")
            time.sleep(0.05)

    def stop(self):
        if self.process is None:
            return
        terminate(self.process, ROUDI_STOP_SECONDS)
        self.process = None


# ---------------------------------------------------------------------------------------------
# The brokers the mqtt and redis transports' role processes go through: one of our own per
# transport for a tool's whole run, on a free loopback port, as netprof --local-pair --mqtt (or
# --redis) starts for itself (docs/transport-mqtt.md, docs/transport-redis.md); the listing is
# asked with --mqtt (--redis) 127.0.0.1:PORT beside it, so every run's loopback arguments name it
# (and a topic prefix unique to the run).

BROKER_START_SECONDS = 10
BROKER_STOP_SECONDS = 5
_running_servers = {}  # transport name -> the LoopbackServer its runs go through


class LoopbackServer:
    """A broker started here, listening on 127.0.0.1 only, its files in a private folder,
    stopped by PID at the end. A subclass says which program, how it is configured and run."""

    transport = program = package = folder_prefix = config_name = None
    readable_by_others = False  # a program run as root that drops to its own user first

    def config(self, port, folder):
        raise NotImplementedError

    def argv(self, config):
        raise NotImplementedError

    def __init__(self):
        self.process = None
        self.port = None
        self.folder = None

    def start(self):
        self.folder = tempfile.mkdtemp(prefix=self.folder_prefix)
        self.port = free_port(socket.SOCK_STREAM)
        config = os.path.join(self.folder, self.config_name)
        with open(config, "w", encoding="utf-8") as file:
            file.write(self.config(self.port, self.folder))
        if self.readable_by_others:
            os.chmod(self.folder, 0o755)
            os.chmod(config, 0o644)
        try:
            self.process = subprocess.Popen(self.argv(config), stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
        except OSError as error:
            self._remove_folder()
            raise SetupError(f"cannot start {self.program} for the {self.transport} transport: "
                             f"{error} (apt-get install {self.package})") from error
        deadline = time.monotonic() + BROKER_START_SECONDS
        while not _accepts(self.port):
            code = self.process.poll()
            if code is not None or time.monotonic() > deadline:
                self.stop()
                raise SetupError(f"{self.program} did not accept connections on "
                                 f"127.0.0.1:{self.port}"
                                 + (f" (it exited with status {code})" if code is not None
                                    else f" within {BROKER_START_SECONDS} s"))
            time.sleep(0.05)
        _running_servers[self.transport] = self

    def stop(self):
        if _running_servers.get(self.transport) is self:
            del _running_servers[self.transport]
        if self.process is not None:
            if self.process.poll() is None:
                terminate(self.process, BROKER_STOP_SECONDS)
            self.process = None
        self._remove_folder()

    def _remove_folder(self):
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


class MqttBroker(LoopbackServer):
    """A mosquitto, anonymous, with no persistence and no limit on a subscriber's queue."""

    transport, program, package = "mqtt", "mosquitto", "mosquitto"
    folder_prefix, config_name = "netprof-tools-mqtt-", "mosquitto.conf"
    readable_by_others = True  # mosquitto, run as root, reads it before dropping to its user

    def config(self, port, folder):
        return (f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                "persistence false\nmax_queued_messages 0\nset_tcp_nodelay true\n")

    def argv(self, config):
        return ["mosquitto", "-c", config]


class RedisServer(LoopbackServer):
    """A redis-server with no persistence and no Unix socket, working in its private folder."""

    transport, program, package = "redis", "redis-server", "redis-server"
    folder_prefix, config_name = "netprof-tools-redis-", "redis.conf"

    def config(self, port, folder):
        return (f'bind 127.0.0.1\nport {port}\nprotected-mode yes\nsave ""\n'
                f'appendonly no\ndaemonize no\ndir "{folder}"\nlogfile ""\n')

    def argv(self, config):
        return ["redis-server", config]


def _accepts(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def service_options(transport):
    """Options to list `transport`'s loopback arguments with, naming a service started here (the
    MQTT broker, the Redis server); () for every other transport."""
    server = _running_servers.get(transport)
    return [f"--{transport}", f"127.0.0.1:{server.port}"] if server is not None else []


class PairServices:
    """What the setups' role processes need on this host besides themselves, stopped together."""

    def __init__(self, services):
        self.services = services

    def stop(self):
        for service in self.services:
            service.stop()


def roudi_for(setups):
    """(services, None) when a setup needs a service of this host (iceoryx's RouDi, which may be
    the user's; an MQTT broker or a Redis server of our own) and it runs (the caller stops it);
    (None, reason) when one is needed but cannot be had; (None, None) when none is needed."""
    return roudi_for_transports(setup.transport for setup in setups)


def roudi_for_transports(names):
    """roudi_for() for transports named as netprof --list-transports names them."""
    names = set(names)
    wanted = [service for name, service in (("iceoryx", RouDi), ("mqtt", MqttBroker),
                                            ("redis", RedisServer))
              if name in names]
    if not wanted:
        return None, None
    started = []
    for service in wanted:
        try:
            started.append(service())
            started[-1].start()
        except SetupError as error:
            started.pop()
            for running in started:
                running.stop()
            return None, str(error)
    return PairServices(started), None


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


def terminate(process, seconds):
    """A helper process (RouDi, the broker) asked to stop, so it removes what it made, and
    killed if it has not within `seconds`; reaped either way."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


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
