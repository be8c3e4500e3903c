"""One sweep point across hosts: scripts/tools/sweep.py --hosts runs each point through
scripts/tools/launch.py, unchanged, as a user would (its own process, under a deadline, killed
by PID), with a hosts file cut to the point's subscriber count and transport, and turns the
merged report into the same RunOutcome a point on this host gives. Standard library only.
"""

import json
import os
import time

import netprof_harness as harness
import netprof_processes as processes_lib
import netprof_hosts_file as hosts_file
import netprof_output as output

LAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "launch.py")
LAUNCH_SLACK_SECONDS = 60   # the launcher's checks, starts, stops and fetches over ssh


def write_hosts_file(path, hosts, subscribers, transport):
    """The hosts file for one point: the publishers and the first `subscribers` subscribers,
    every setting written out (strings as JSON strings, which TOML reads the same)."""
    roles = hosts.publishers + hosts.subscribers[:subscribers]
    lines = [f"transport = {json.dumps(transport)}",
             f"port = {hosts.publisher.port - hosts.publisher.index}"]
    if hosts.broker:
        lines.append(f"broker = {json.dumps(hosts.broker)}")
    for role in roles:
        lines.append("\n[[host]]")
        fields = {"name": role.name, "role": role.role, "ssh": role.ssh,
                  "address": role.address, "netprof": role.netprof,
                  "copy_binary": role.copy_binary, "work_dir": role.work_dir}
        if role.cpu is not None:
            fields["cpu"] = role.cpu
        lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    output.write_text(path, "\n".join(lines) + "\n")


def failed(reason, started):
    return harness.RunOutcome(exit_code=None, subscriber_exit_codes=[], report=None,
                              subscriber_reports=[], reason=reason,
                              elapsed_seconds=time.monotonic() - started, json_files=[])


def run(netprof, spec, hosts, ssh_config, out_dir, stem):
    """Runs the point through launch.py; never raises for a failed run (like harness.run)."""
    started = time.monotonic()
    try:
        hosts_file.remote_launch(harness.describe(netprof), spec.setup.transport,
                                 broker=hosts.broker)
    except (hosts_file.HostsFileError, harness.SetupError) as error:
        return failed(f"{spec.setup.name} is not launched across hosts: {error}", started)
    if spec.setup.variant_options:
        return failed(f"{spec.setup.name} is not launched across hosts (a variant)", started)
    if spec.subscribers > len(hosts.subscribers):
        return failed(f"{spec.subscribers} subscribers asked for, the hosts file has "
                      f"{len(hosts.subscribers)}", started)
    point_dir = os.path.join(out_dir, stem)
    os.makedirs(point_dir, exist_ok=True)
    hosts_path = os.path.join(point_dir, "hosts.toml")
    write_hosts_file(hosts_path, hosts, spec.subscribers, spec.setup.transport)
    argv = [LAUNCH, "--netprof", netprof, "--out", point_dir, "--deadline",
            str(spec.deadline_seconds()), *(["--ssh-config", ssh_config] if ssh_config else []),
            hosts_path, "-s", spec.payload_size, "-q", spec.queue_length, "-t",
            spec.duration_seconds, "--warmup-time", spec.warmup_seconds, "--mode", spec.mode,
            "--send-hz", spec.send_hz, *spec.extra_args]
    processes = processes_lib.Processes()
    try:
        done = processes.finish(processes.start(argv), deadline_s=spec.deadline_seconds()
                                + LAUNCH_SLACK_SECONDS)
    except processes_lib.DeadlineExceeded as error:
        return failed(f"launch.py {error}", started)
    finally:
        processes.kill_all()
    return outcome_of(done, point_dir, started)


def outcome_of(done, point_dir, started):
    # The launcher's merged report: each role's entry holds that role's own report.
    merged = processes_lib.read_json(os.path.join(point_dir, "merged.json"))
    if not isinstance(merged, dict) or not isinstance(merged.get("publisher"), dict):
        words = done.stderr.strip().splitlines()
        return failed(f"launch.py exited {done.returncode}: "
                      f"{words[-1] if words else 'no merged report'}", started)
    publisher = merged["publisher"]
    subscribers = [s for s in merged.get("subscribers", []) if isinstance(s, dict)]
    reason = ""
    if done.returncode != 0:
        reason = str(merged.get("launcher", {}).get("reason", "")) or \
            f"launch.py exited {done.returncode}"
    json_files = [os.path.join(point_dir, f"{entry.get('name')}.json")
                  for entry in [publisher, *subscribers] if entry.get("report")]
    return harness.RunOutcome(
        exit_code=publisher.get("exit_code"),
        subscriber_exit_codes=[s.get("exit_code") for s in subscribers],
        report=publisher.get("report"), subscriber_reports=[s.get("report") for s in subscribers],
        reason=reason, elapsed_seconds=time.monotonic() - started, json_files=json_files)
