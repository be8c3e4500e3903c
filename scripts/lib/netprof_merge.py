"""One merged JSON report and one CSV row per subscriber (per subscriber and publisher, with
several publishers) from the reports every role of a multi-host run wrote (scripts/tools/launch.py). The reports came from other hosts: each is
parsed with a size limit, must be a JSON object, and every figure is read through `figure`,
which accepts only numbers, so a malformed report loses its figures, never the launcher.
Standard library only.
"""

import csv
import json

import netprof_input as loader
import netprof_output as output

MERGED_SCHEMA_VERSION = 1
CSV_COLUMNS = [
    "run_tag", "name", "id", "ssh", "address", "exit_code", "outcome", "received", "lost",
    "loss_percent", "messages_owed", "messages_per_second", "payload_bytes_per_second", "wire_bytes_per_second",
    "throughput_seconds", "rtt_p50_ns", "rtt_p99_ns", "rtt_max_ns", "one_way_rtt_half_p50_ns",
    "clock_offset_ns", "clock_offset_bound_ns", "forward_p50_ns", "forward_p99_ns",
    "backward_p50_ns", "backward_p99_ns", "turnaround_p50_ns", "publisher_messages_sent",
    "publisher",
]


def parse_report(text, limit):
    """(report dict, None) or (None, why not)."""
    if not text.strip():
        return None, "no report (netprof wrote none: it stopped before its run)"
    if len(text) > limit:
        return None, f"report larger than {limit} bytes: ignored"
    try:
        return loader.parse_json(text, "report"), None
    except loader.InputError as error:
        return None, str(error)


def field(value, *keys):
    """value[k1][k2]... when every step is an object that has the key; else None."""
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def figure(value, *keys):
    """A number from the report, or None (booleans and strings are not figures)."""
    found = field(value, *keys)
    if isinstance(found, bool) or not isinstance(found, (int, float)):
        return None
    return found


def role_entry(role, result):
    """The merged report's record of one role: where it ran, how it ended, its report."""
    return {"name": role.name, "role": role.role, "id": role.index, "ssh": role.ssh,
            "address": role.address, "port": role.port, "cpu": role.cpu,
            "exit_code": result.exit_code, "problem": result.problem,
            "report": result.report}


def merged_report(launcher_facts, roles, results):
    """`publisher` is publisher 0's entry, `publishers` every publisher's (one, or several),
    `subscribers` the rest, each in id order."""
    entries = [role_entry(role, results[role.name]) for role in roles]
    publishers = [entry for entry in entries if entry["role"] == "publisher"]
    return {"schema_version": MERGED_SCHEMA_VERSION, "launcher": launcher_facts,
            "publisher": publishers[0], "publishers": publishers,
            "subscribers": [entry for entry in entries if entry["role"] == "subscriber"]}


def publisher_entry_for(publisher_report, subscriber_id):
    """The publisher's subscribers[] entry for this id, or None."""
    entries = field(publisher_report, "subscribers")
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and figure(entry, "id") == subscriber_id:
            return entry
    return None


def loss_view(own, seen, publisher_report):
    """(lost, loss_percent) as the publisher counted them when this subscriber's counters
    reached it (it knows what it sent to whom); else as the subscriber counted them, except
    under --fanout round-robin, where a subscriber cannot know its loss: (None, None) then."""
    if field(seen, "counters_received") is True:
        return figure(seen, "lost"), figure(seen, "loss_percent")
    if field(publisher_report, "settings", "fanout") == "round-robin":
        return None, None
    return figure(own, "lost"), figure(own, "loss_percent")


def own_stream(subscriber_report, publisher_id, several):
    """The subscriber's own figures for publisher `publisher_id`'s stream: its whole report's
    with one publisher, else that publisher's topic 0 in its per_publisher[] (None if absent)."""
    own = field(subscriber_report, "subscriber")
    if not several:
        return own
    streams = field(own, "per_publisher")
    for stream in streams if isinstance(streams, list) else []:
        if figure(stream, "publisher") == publisher_id and figure(stream, "topic") in (0, None):
            return stream
    return None


def csv_row(run_tag, entry, publisher_report, publisher_id=0, several=False):
    own = own_stream(entry["report"], publisher_id, several)
    seen = publisher_entry_for(publisher_report, entry["id"])
    outcome = field(seen, "outcome")
    lost, loss_percent = loss_view(own, seen, publisher_report)
    return {
        "run_tag": run_tag, "name": entry["name"], "id": entry["id"], "ssh": entry["ssh"],
        "address": entry["address"], "exit_code": entry["exit_code"],
        "outcome": outcome if isinstance(outcome, str) else None,
        "received": figure(own, "received"), "lost": lost, "loss_percent": loss_percent,
        # What it was to receive: every message since it joined, or its round-robin share.
        "messages_owed": figure(seen, "messages_owed"),
        "messages_per_second": figure(own, "throughput", "messages_per_second"),
        "payload_bytes_per_second": figure(own, "throughput", "payload_bytes_per_second"),
        "wire_bytes_per_second": figure(own, "throughput", "wire_bytes_per_second"),
        "throughput_seconds": figure(own, "throughput", "seconds"),
        "rtt_p50_ns": figure(seen, "latency", "rtt_ns", "p50"),
        "rtt_p99_ns": figure(seen, "latency", "rtt_ns", "p99"),
        "rtt_max_ns": figure(seen, "latency", "rtt_ns", "max"),
        "one_way_rtt_half_p50_ns": figure(seen, "latency", "one_way_ns", "p50"),
        # One-way across clocks: each figure is uncertain by ± clock_offset_bound_ns.
        "clock_offset_ns": figure(seen, "latency", "cross_clock", "offset_ns"),
        "clock_offset_bound_ns": figure(seen, "latency", "cross_clock", "bound_ns"),
        "forward_p50_ns": figure(seen, "latency", "cross_clock", "forward_ns", "p50"),
        "forward_p99_ns": figure(seen, "latency", "cross_clock", "forward_ns", "p99"),
        "backward_p50_ns": figure(seen, "latency", "cross_clock", "backward_ns", "p50"),
        "backward_p99_ns": figure(seen, "latency", "cross_clock", "backward_ns", "p99"),
        # The subscriber's own time inside each round trip, on its clock alone: no bound.
        "turnaround_p50_ns": figure(seen, "latency", "cross_clock", "turnaround_ns", "p50"),
        "publisher_messages_sent": figure(publisher_report, "publisher", "messages_sent"),
        "publisher": publisher_id,
    }


def write(merged, json_path, csv_path):
    output.write_text(json_path, json.dumps(merged, indent=1) + "\n")
    publishers = merged["publishers"]
    several = len(publishers) > 1
    with output.open_for_writing(csv_path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for publisher in publishers:
            for entry in merged["subscribers"]:
                writer.writerow(csv_row(merged["launcher"]["run_tag"], entry,
                                        publisher["report"], publisher["id"], several))
