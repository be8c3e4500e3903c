"""The hosts file of scripts/tools/launch.py (TOML): which hosts run publishers (one, or
several over a shared medium), which run subscribers, how to reach each over ssh, the address netprof uses there and its CPU pin.
Every mistake is a HostsFileError naming the entry and the field (launch.py exits 2), so a
typo never starts a run that measures the wrong thing. The format: docs/multi-host.md.
Standard library only (tomllib: Python 3.11).
"""

import dataclasses
import re
import tomllib

ROLES = ("publisher", "subscriber")
MAX_PUBLISHERS = 16  # netprof --publishers
# The transports and how each is launched across hosts come from the netprof that runs
# (`netprof --list-transports --json`, "remote_launch"): see remote_launch() below.
TRANSPORT_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# A token with no whitespace, quote or shell metacharacter: it goes on a remote command line
# (quoted there too) and into file names.
ADDRESS = re.compile(r"^[A-Za-z0-9_.:-]{1,253}$")
# A brokered transport's broker (mqtt, redis): HOST:PORT, the same for every role.
BROKER = re.compile(r"^[A-Za-z0-9_.:-]{1,253}:[0-9]{1,5}$")
# {address} picks the host's interface by its address (--mc-interface, --bc-interface,
# --dds-interface): a dotted quad, since a name would be read there as an interface's name.
IPV4 = re.compile(r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
                  r"(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$")
SSH_DESTINATION = re.compile(r"^[A-Za-z0-9_.@:%-]{1,255}$")
# The run's folder is the destination of scp, whose remote path a remote shell reads in the
# legacy protocol (scp -O, OpenSSH before 9.0) and no shell reads in SFTP mode: only a path
# that needs no quoting means the same file to both (netprof_remote quotes it all the same).
WORK_DIR = re.compile(r"^/$|^/?[A-Za-z0-9_.,+=@%][A-Za-z0-9_.,+=@%/-]{0,1023}$")

TOP_LEVEL = {"netprof": str, "copy_binary": bool, "port": int, "transport": str,
             "broker": str, "work_dir": str, "host": list}
HOST_FIELDS = {"name": str, "role": str, "ssh": str, "address": str, "cpu": int,
               "netprof": str, "copy_binary": bool, "work_dir": str}
REQUIRED_HOST_FIELDS = ("name", "role", "ssh", "address")
TOML_TYPES = {str: "a string", int: "an integer", bool: "a boolean (true or false)",
              list: "an array of tables ([[host]])", float: "a float", dict: "a table"}


class HostsFileError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Role:
    name: str          # the entry's name, unique in the file
    role: str          # publisher | subscriber
    index: int         # netprof -i: publishers 0..P-1, then subscribers, each in file order
    ssh: str           # ssh destination: [user@]host, or an alias of the ssh config
    address: str       # the data address netprof binds on that host
    port: int          # the data port: the file's port + index
    cpu: object        # int or None
    netprof: str       # the binary's path on the host (what runs there)
    copy_binary: bool  # copy the local binary there first (scp)
    work_dir: str      # where this run's files live on the host


@dataclasses.dataclass(frozen=True)
class HostsFile:
    path: str
    transport: str
    roles: list        # the publishers first, then subscribers, each in file order
    broker: str = None  # HOST:PORT of a brokered transport's broker, or None

    @property
    def publisher(self):
        """Publisher 0: the one whose address the others' derive from, which leads the run."""
        return self.roles[0]

    @property
    def publishers(self):
        return [role for role in self.roles if role.role == "publisher"]

    @property
    def subscribers(self):
        return [role for role in self.roles if role.role == "subscriber"]

    @property
    def lead(self):
        """Where the other publishers send publisher 0 their reports (netprof --lead): its
        address, at the first port after the roles' (port + number of roles)."""
        return f"{self.publisher.address}:{self.publisher.port + len(self.roles)}"


def load(path):
    try:
        with open(path, "rb") as f:
            document = tomllib.load(f)
    except OSError as error:
        raise HostsFileError(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise HostsFileError(f"{path} is not valid TOML: {error}") from None
    return parse(document, path)


def parse(document, path="hosts file"):
    check_fields(document, TOP_LEVEL, path)
    transport = document.get("transport", "udp")
    if not isinstance(transport, str) or not TRANSPORT_NAME.match(transport):
        raise HostsFileError(f"{path}: transport {transport!r} is not a transport's name")
    broker = document.get("broker")
    if broker is not None and (not BROKER.match(broker) or
                               not 1 <= int(broker.rsplit(":", 1)[1]) <= 65535):
        raise HostsFileError(f"{path}: broker {broker!r}: HOST:PORT, the broker every role "
                             "reaches, e.g. \"10.0.0.5:1883\"")
    port = document.get("port", 40000)
    entries = document.get("host", [])
    if not 1 <= port <= 65535 - len(entries):
        raise HostsFileError(f"{path}: port {port}: 1 to {65535 - len(entries)} (role i "
                             "uses port + i)")
    check_work_dir(document.get("work_dir", "/tmp"), path)
    defaults = {"netprof": document.get("netprof", "netprof"),
                "copy_binary": document.get("copy_binary", False),
                "work_dir": document.get("work_dir", "/tmp")}
    hosts = [parse_host(entry, number, path) for number, entry in enumerate(entries, 1)]
    names = [host["name"] for host in hosts]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise HostsFileError(f"{path}: host name {', '.join(twice)} given more than once")
    publishers = [host for host in hosts if host["role"] == "publisher"]
    subscribers = [host for host in hosts if host["role"] == "subscriber"]
    if not publishers:
        raise HostsFileError(f"{path}: no [[host]] with role = \"publisher\"")
    if len(publishers) > MAX_PUBLISHERS:
        raise HostsFileError(f"{path}: {len(publishers)} hosts with role = \"publisher\": "
                             f"netprof takes at most {MAX_PUBLISHERS}")
    if not subscribers:
        raise HostsFileError(f"{path}: no [[host]] with role = \"subscriber\"")
    roles = [make_role(host, index, port, defaults)
             for index, host in enumerate(publishers + subscribers)]
    return HostsFile(path=path, transport=transport, roles=roles, broker=broker)


def check_fields(table, known, where):
    if not isinstance(table, dict):
        raise HostsFileError(f"{where}: expected a table")
    for key, value in table.items():
        if key not in known:
            raise HostsFileError(f"{where}: unknown field {key!r} (known: "
                                 f"{', '.join(sorted(known))})")
        # bool is an int in Python: a port of `true` must not pass.
        if not isinstance(value, known[key]) or (known[key] is int and isinstance(value, bool)):
            raise HostsFileError(f"{where}: {key} must be {TOML_TYPES[known[key]]}, not "
                                 f"{TOML_TYPES.get(type(value), type(value).__name__)}")


def parse_host(entry, number, path):
    where = f"{path}: [[host]] #{number}"
    check_fields(entry, HOST_FIELDS, where)
    missing = [field for field in REQUIRED_HOST_FIELDS if field not in entry]
    if missing:
        raise HostsFileError(f"{where}: missing {', '.join(missing)}")
    where = f"{path}: host {entry['name']!r}"
    if not NAME.match(entry["name"]):
        raise HostsFileError(f"{where}: a name is letters, digits, '.', '_' and '-'")
    if entry["role"] not in ROLES:
        raise HostsFileError(f"{where}: unknown role {entry['role']!r}: publisher or "
                             "subscriber")
    if not SSH_DESTINATION.match(entry["ssh"]) or entry["ssh"].startswith("-"):
        raise HostsFileError(f"{where}: ssh {entry['ssh']!r} is not an ssh destination")
    if not ADDRESS.match(entry["address"]):
        raise HostsFileError(f"{where}: address {entry['address']!r} is not a host name or "
                             "address")
    if "cpu" in entry and not 0 <= entry["cpu"] < 4096:
        raise HostsFileError(f"{where}: cpu {entry['cpu']}: a CPU number, 0 or more")
    if "netprof" in entry and (not entry["netprof"] or "\n" in entry["netprof"]):
        raise HostsFileError(f"{where}: netprof must be a path")
    if "work_dir" in entry:
        check_work_dir(entry["work_dir"], where)
    return entry


def check_work_dir(work_dir, where):
    if not WORK_DIR.match(work_dir):
        raise HostsFileError(f"{where}: work_dir {work_dir!r}: a path of letters, digits and "
                             "'/._-+,=@%' only (no space, quote or shell metacharacter: it is "
                             "the remote path of scp)")


def make_role(host, index, port, defaults):
    return Role(name=host["name"], role=host["role"], index=index, ssh=host["ssh"],
                address=host["address"], port=port + index, cpu=host.get("cpu"),
                netprof=host.get("netprof", defaults["netprof"]),
                copy_binary=host.get("copy_binary", defaults["copy_binary"]),
                work_dir=host.get("work_dir", defaults["work_dir"]))


def remote_launch(listing, transport, path="hosts file", broker=None):
    """The remote-launch templates of `transport` ({"publisher": [...], "subscriber": [...]})
    from `listing`, netprof's `--list-transports --json`. A transport that netprof lacks, that
    runs on one host only (its templates null), or that goes through a broker ({broker} in its
    templates) when `broker` is None, is a HostsFileError."""
    launchable = [t["name"] for t in listing["transports"] if t.get("remote_launch")]
    for described in listing["transports"]:
        if described["name"] == transport:
            if not described.get("remote_launch"):
                raise HostsFileError(f"{path}: transport {transport!r} runs on one host only; "
                                     f"across hosts: {', '.join(launchable)}")
            templates = described["remote_launch"]
            if broker is None and "{broker}" in " ".join(
                    templates["publisher"] + templates["subscriber"]):
                raise HostsFileError(f"{path}: transport {transport!r} goes through a broker: "
                                     "give broker = \"HOST:PORT\", the broker every host "
                                     "reaches")
            return templates
    raise HostsFileError(f"{path}: transport {transport!r}: one of {', '.join(launchable)}")


def check_publishers(templates, hosts):
    """Several publishers need a transport whose streams do not name a host: stream k is
    derived from the address every role is given (its port moved up by k), which across hosts
    can only be a shared medium (a group, a broadcast address, DDS topics, a broker), never one
    host's address ({own}, {publisher}). A HostsFileError otherwise."""
    if len(hosts.publishers) < 2:
        return
    if any(placeholder in " ".join(templates["publisher"] + templates["subscriber"])
           for placeholder in ("{own}", "{publisher}")):
        raise HostsFileError(
            f"{hosts.path}: {len(hosts.publishers)} publishers over {hosts.transport!r}: each "
            "publisher's stream is derived from the one address every role is given, which "
            f"over {hosts.transport!r} names publisher 0's host; across hosts several "
            "publishers need a shared medium: multicast, broadcast, dds, fastdds, mqtt or redis")


def template_options(templates):
    """The options a transport's templates give (`-m`, `--mc-interface`, ...): the launcher sets
    them, so the user may not give them too."""
    return {part for part in templates["publisher"] + templates["subscriber"]
            if part.startswith("-")}


def check_addresses(templates, hosts):
    """A transport that picks each host's interface by its address ({address}: multicast,
    broadcast, dds, fastdds) needs every address as an IPv4 address; a HostsFileError names the
    first host whose address is a name."""
    if "{address}" not in " ".join(templates["publisher"] + templates["subscriber"]):
        return
    for role in hosts.roles:
        if not IPV4.match(role.address):
            raise HostsFileError(f"{hosts.path}: host {role.name!r}: address {role.address!r}: "
                                 f"transport {hosts.transport!r} picks the interface that has "
                                 "this address, so give the IPv4 address, not a name")


def launch_arguments(templates, role, publisher, broker=None):
    """A role's transport arguments: its template with {own} (its address:port), {publisher}
    (the publisher's), {address} (its address alone: the interface facing the other hosts),
    {port} (the run's port, the same for every role: the publisher's) and {broker} (the hosts
    file's broker) filled in."""
    values = {"{own}": f"{role.address}:{role.port}",
              "{publisher}": f"{publisher.address}:{publisher.port}",
              "{address}": role.address, "{port}": str(publisher.port), "{broker}": broker or ""}
    template = templates[role.role]
    filled = []
    for part in template:
        for placeholder, value in values.items():
            part = part.replace(placeholder, value)
        filled.append(part)
    return filled
