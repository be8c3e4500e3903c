#!/usr/bin/python3
"""Runs netprof across hosts over OpenSSH: a publisher on one host (or several, over a shared
medium), subscribers on others, as a hosts file (TOML) says; writes one merged JSON report and
one CSV row per subscriber (per subscriber and publisher, with several).

    scripts/tools/launch.py hosts.toml -s 1024 -t 5 --send-hz 10000
    scripts/tools/launch.py --ssh-config lab/ssh_config --out results/r1 lab/hosts.toml -t 2

Arguments after the hosts file go to netprof on every host. The launcher gives each role its
-i, its transport addresses, the publisher `--subscribers N`, and --cpu, --wait and --json
itself; with several publishers, every role `--publishers P` and each publisher `--lead` (publisher
0's address at the hosts file's port + the number of roles), where publisher 0 gathers the
others' reports. The transport addresses follow the templates of the local `netprof --list-transports
--json` ("remote_launch"), whose placeholders it fills per role:

    {own}        the role's address:port (the hosts file's address, port + its index)
    {publisher}  the publisher's address:port
    {address}    the role's address alone: it names the interface facing the other hosts,
                 the one that has this address (so it must be an IPv4 address)
    {port}       the run's port, the same for every role (the hosts file's, the publisher's)
    {broker}     the hosts file's broker, HOST:PORT

So UDP gives a subscriber `-u own:port -u publisher:port` and the publisher `-u own:port`;
multicast every role `-m 239.255.0.1:PORT --mc-interface ADDRESS` (joined and sent on that
interface, whatever the host's routes say); broadcast `-b PORT --bc-interface ADDRESS` (that
interface's broadcast address); dds `--dds --dds-interface ADDRESS` (Cyclone on that interface
only; fastdds alike); MQTT and Redis `--mqtt BROKER` or `--redis BROKER`. Options a template
sets may not be given after the hosts file.

Before starting, every host must answer over ssh (BatchMode: keys or agent, never a password
prompt) and have netprof whose `--version` equals the local one. Then it starts the
subscribers, then the publisher, each as `echo $$; exec netprof ...` so its PID is known; waits
under a deadline; stops every remote process by that PID on Ctrl-C, SIGTERM, a lost host or
any failure; fetches each role's JSON and removes the run's files from the hosts.

Writes into --out: NAME.stdout, NAME.stderr, NAME.json per role, merged.json, subscribers.csv.
Exit status: 0 passed; 1 netprof's test failed; 2 bad command line, hosts file or netprof
arguments; 3 a host unusable (unreachable, no netprof, another version, copy failed), nothing
started; 4 the run broke (a host lost, a role failed or was killed, deadline passed), every
role stopped; 130 interrupted, every role stopped. docs/multi-host.md. Standard library only.
"""

import argparse
import datetime
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_hosts_file as hosts_file  # noqa: E402
import netprof_merge as merge  # noqa: E402
import netprof_remote as remote  # noqa: E402
import netprof_launch_run as launch_run  # noqa: E402
import netprof_harness as harness  # noqa: E402
from netprof_harness import QUERY_TIMEOUT_SECONDS, default_netprof  # noqa: E402
# Exit statuses (HOST_UNUSABLE and RUN_BROKEN come with RunFailed from the run).
from netprof_launch_run import (BAD_INPUT, INTERRUPTED, PASSED, TEST_FAILED,  # noqa: E402
                                RunFailed)

DEFAULT_WAIT_SECONDS = 20        # roles start over ssh one after another: allow for it
DEADLINE_SLACK_SECONDS = 30      # ending, counters, a loaded machine
# Options the launcher sets itself, from the hosts file.
OWNED_OPTIONS = {"-i", "--id", "-u", "--udp", "-m", "--multicast", "-b", "--broadcast",
                 "--zmq", "--tcp", "--json", "--subscribers", "--local-pair", "--cpu", "--shm",
                 "--uds", "--mq", "--mqtt", "--redis", "--publishers", "--lead"}
NETPROF_DEFAULTS = {"time": 10.0, "warmup": 0.5, "wait": 10.0}


class UsageError(Exception):
    pass


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Run netprof across hosts over ssh, as a hosts file says; merge the "
                    "reports.", epilog="Exit status: 0 passed, 1 test failed, 2 bad input, "
                    "3 a host unusable, 4 run broke (all stopped), 130 interrupted.")
    parser.add_argument("--ssh-config", help="ssh -F FILE for every ssh and scp")
    parser.add_argument("--netprof", default=default_netprof(), help="the local netprof, "
                        "whose version every host must have, and which copy_binary copies "
                        "(default: %(default)s)")
    parser.add_argument("--out", help="output folder (default: results/launch-DATE-TIME)")
    parser.add_argument("--deadline", type=float, help="seconds the run may take once "
                        "started (default: wait + warm-up + -t + 30)")
    parser.add_argument("--connect-timeout", type=int, default=10, help="ssh ConnectTimeout, "
                        "seconds (default: %(default)s)")
    parser.add_argument("hosts", help="hosts file (TOML; docs/multi-host.md)")
    parser.add_argument("netprof_args", nargs=argparse.REMAINDER,
                        help="options for netprof on every host, e.g. -s 1024 -t 5")
    arguments = parser.parse_args(argv)
    if arguments.netprof_args[:1] == ["--"]:
        arguments.netprof_args = arguments.netprof_args[1:]
    owned = sorted({a.split("=", 1)[0] for a in arguments.netprof_args} & OWNED_OPTIONS)
    if owned:
        raise UsageError(f"{', '.join(owned)}: the launcher sets these from the hosts file")
    if arguments.deadline is not None and not arguments.deadline > 0:
        raise UsageError("--deadline must be > 0")
    if not 1 <= arguments.connect_timeout <= 600:
        raise UsageError("--connect-timeout: 1 to 600 seconds")
    if not arguments.out:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        arguments.out = os.path.join("results", f"launch-{stamp}")
    return arguments


def option_value(arguments, names):
    """The last value given to any of `names` (`-t 5`, `--time 5`, `--time=5`), as a float,
    or None. Only to size the deadline: netprof itself checks its arguments."""
    found = None
    for i, argument in enumerate(arguments):
        name, _, inline = argument.partition("=")
        if name in names:
            text = inline if inline else (arguments[i + 1] if i + 1 < len(arguments) else "")
            try:
                found = float(text)
            except ValueError:
                pass
    return found


def deadline_for(arguments):
    if arguments.deadline:
        return arguments.deadline
    given = arguments.netprof_args
    if option_value(given, {"--count"}) is not None:
        return 600  # no time bound known: the run ends when its count is sent
    seconds = option_value(given, {"-t", "--time"}) or NETPROF_DEFAULTS["time"]
    warmup = option_value(given, {"--warmup-time"}) or NETPROF_DEFAULTS["warmup"]
    wait = option_value(given, {"--wait"}) or DEFAULT_WAIT_SECONDS
    return wait + warmup + seconds + DEADLINE_SLACK_SECONDS


def transport_templates(netprof, hosts):
    """How the local netprof says to launch the hosts file's transport across hosts (its
    "remote_launch" templates); a HostsFileError when it cannot be."""
    try:
        listing = harness.describe(netprof)
    except harness.SetupError as error:
        raise UsageError(str(error)) from None
    templates = hosts_file.remote_launch(listing, hosts.transport, hosts.path, hosts.broker)
    hosts_file.check_addresses(templates, hosts)
    hosts_file.check_publishers(templates, hosts)
    return templates


def refuse_template_options(templates, netprof_args):
    given = {argument.split("=", 1)[0] for argument in netprof_args}
    owned = sorted(given & hosts_file.template_options(templates))
    if owned:
        raise UsageError(f"{', '.join(owned)}: the launcher sets these from the hosts file")


def role_arguments(hosts, templates, arguments, role):
    own = ["-i", str(role.index),
           *hosts_file.launch_arguments(templates, role, hosts.publisher, hosts.broker)]
    if role.role == "publisher":
        own += ["--subscribers", str(len(hosts.subscribers))]
    if len(hosts.publishers) > 1:
        own += ["--publishers", str(len(hosts.publishers))]
        if role.role == "publisher":
            own += ["--lead", hosts.lead]
    if role.cpu is not None:
        own += ["--cpu", str(role.cpu)]
    if option_value(arguments.netprof_args, {"--wait"}) is None:
        own += ["--wait", str(DEFAULT_WAIT_SECONDS)]
    return own + list(arguments.netprof_args)


def local_version(netprof):
    try:
        done = subprocess.run([netprof, "--version"], capture_output=True, text=True,
                              timeout=QUERY_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"cannot run the local netprof {netprof}: {error} (--netprof)")
    if done.returncode != 0:
        raise UsageError(f"{netprof} --version exited {done.returncode}")
    return launch_run.first_line(done.stdout)


def interrupt_on_sigterm():
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def main(argv):
    interrupt_on_sigterm()
    try:
        arguments = parse_arguments(argv)
        hosts = hosts_file.load(arguments.hosts)
        version = local_version(arguments.netprof)
        templates = transport_templates(arguments.netprof, hosts)
        refuse_template_options(templates, arguments.netprof_args)
        os.makedirs(arguments.out, exist_ok=True)
    except (UsageError, hosts_file.HostsFileError, OSError) as error:
        print(f"launch: {error}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        return INTERRUPTED
    tag = f"netprof-launch-{os.getpid()}-{int(time.time())}"
    run = launch_run.Run(hosts, remote.Ssh(arguments.ssh_config, arguments.connect_timeout),
                         tag, arguments.out, arguments.netprof, version)
    status, reason = PASSED, ""
    try:
        run.check_hosts()
        run.start_roles(lambda role: role_arguments(hosts, templates, arguments, role))
        run.watch(deadline_for(arguments))
        codes = [run.results[role.name].exit_code for role in hosts.roles]
        if any(code != 0 for code in codes):
            status, reason = TEST_FAILED, "netprof's test failed: " + ", ".join(
                f"{role.name} exited {code}" for role, code in zip(hosts.roles, codes) if code)
    except RunFailed as failure:
        status, reason = failure.status, str(failure)
    except KeyboardInterrupt:
        status, reason = INTERRUPTED, "interrupted: every role stopped"
    finally:
        # Even a second Ctrl-C must not skip this: every remote process stopped, every
        # report fetched, every host's run folder removed.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            run.stop_all()
            run.fetch_reports()
        finally:
            run.clean_up()
    return finish(arguments, hosts, run, tag, version, status, reason)


def finish(arguments, hosts, run, tag, version, status, reason):
    facts = {"run_tag": tag, "hosts_file": os.path.abspath(arguments.hosts),
             "transport": hosts.transport, "netprof_args": list(arguments.netprof_args),
             "netprof_version": version, "status": status, "reason": reason}
    merged = merge.merged_report(facts, hosts.roles, run.results)
    json_path = os.path.join(arguments.out, "merged.json")
    csv_path = os.path.join(arguments.out, "subscribers.csv")
    try:
        merge.write(merged, json_path, csv_path)
    except OSError as error:
        print(f"launch: {error}", file=sys.stderr)
        return BAD_INPUT
    if status == PASSED and any(run.results[role.name].malformed_report for role in hosts.roles):
        # The run passed, but a report it merged was not one: the merged files say which.
        status = BAD_INPUT
    report = launch_run.read_text(run.local_path(hosts.publisher, "stdout")).split("\n", 1)
    if len(report) > 1 and report[1].strip():
        print(report[1].rstrip())  # the publisher's text report, after its PID line
    if reason:
        print(f"launch: {reason}", file=sys.stderr)
    for role in hosts.roles:
        problem = run.results[role.name].problem
        if problem and problem not in reason:
            print(f"launch: {role.name}: {problem}", file=sys.stderr)
    print(f"launch: {json_path}, {csv_path}" + (" (exit %d)" % status if status else ""),
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
