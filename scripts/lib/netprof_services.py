"""What role processes need on this host besides themselves, for the tools and the tests: the
private network namespace multicast and broadcast run in, iceoryx's RouDi, and the MQTT broker
and Redis server of the mqtt and redis transports, each started here and stopped by PID.
Standard library only.
"""

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time

from netprof_processes import free_port, terminate


class SetupError(Exception):
    """A transport name or environment problem the user has to fix (exit status 2)."""


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
