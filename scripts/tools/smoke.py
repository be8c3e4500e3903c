#!/usr/bin/python3
"""CI smoke benchmark: every transport of this build, over loopback, at a modest rate.

Each run is a publisher and a subscriber as separate processes (multicast and broadcast inside
a private network namespace when root, else skipped with the reason). Every run must end in
SUCCESS (exit status 0) with zero loss and every probe echoed; a run that fails is run once
more (a loaded CI machine can stall long enough to lose a datagram), and the summary reports
the first failure either way. Writes OUT/summary.md and each run's JSON reports. Takes about
10 s on a 2-core machine (the budget is 60 s).

Optional regression gate against a saved publisher report from an earlier smoke run:

    scripts/tools/smoke.py --baseline saved/udp-stream.pub.json \\
        --metric publisher.latency.one_way_ns.p50 --max-ratio 1.5

fails when that figure of the matching run (same transport and mode) got worse by more than
the ratio. "Worse" is higher for latencies and lower for rates (metrics with `per_second` in
the name); --higher-is-better or --lower-is-better overrides the guess.

Exit status: 0 every check passed, 1 a check or the gate failed, 2 bad arguments or netprof
could not be run. Standard library only.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_harness as harness  # noqa: E402
import netprof_services as services  # noqa: E402
from netprof_processes import read_report  # noqa: E402
import netprof_output as output  # noqa: E402

# A rate loopback carries without loss on a loaded 2-core machine (as the e2e tests use).
SEND_HZ = 2000
DURATION_SECONDS = 1.0
WARMUP_SECONDS = 0.2
RUN_DEADLINE_SECONDS = 25
BUDGET_SECONDS = 60


class GateError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# What runs


def smoke_runs(built):
    """(label, RunSpec) for every transport of the build in stream mode, zmq over ipc too, and
    one unloaded ping-pong run."""
    by_name = {setup.name: setup for setup in built}
    setups = harness.default_setups(built)
    if "zmq-ipc" in by_name:
        setups.append(by_name["zmq-ipc"])
    runs = [(f"{setup.name}-stream", spec_for(setup, "stream")) for setup in setups]
    if "udp" in by_name:
        runs.append(("udp-ping-pong", spec_for(by_name["udp"], "ping-pong")))
    return runs


def spec_for(setup, mode):
    return harness.RunSpec(setup=setup, mode=mode, payload_size=128,
                            send_hz=SEND_HZ if mode == "stream" else 0,
                            duration_seconds=DURATION_SECONDS, warmup_seconds=WARMUP_SECONDS,
                            deadline=RUN_DEADLINE_SECONDS)


# ---------------------------------------------------------------------------------------------
# Checks


def check_outcome(outcome, spec):
    """Every way the run falls short of a clean smoke run, one sentence each."""
    if not outcome.ok:
        return [outcome.reason]
    report = outcome.report
    if report is None:
        return ["the publisher wrote no JSON report"]
    problems = []
    if report["result"]["status"] != "SUCCESS":
        problems.append(f"status {report['result']['status']}")
    publisher = report["publisher"]
    sent = publisher["messages_sent"]
    if sent == 0:
        problems.append("no message sent")
    subscribers = report["subscribers"]
    if len(subscribers) != spec.subscribers:
        problems.append(f"{len(subscribers)} subscribers reported, {spec.subscribers} expected")
    for subscriber in subscribers:
        problems += check_subscriber(subscriber, sent)
    if publisher["probes_sent"] == 0:
        problems.append("no probe sent")
    expected_echoes = publisher["probes_sent"] * spec.subscribers
    if publisher["echoes_received"] != expected_echoes:
        problems.append(f"{publisher['echoes_received']} echoes for "
                        f"{publisher['probes_sent']} probes x {spec.subscribers} subscriber(s)")
    return problems


def check_subscriber(subscriber, sent):
    name = f"subscriber {subscriber['id']}"
    if not subscriber["counters_received"]:
        return [f"{name}: no final counters"]
    problems = []
    if subscriber["lost"] != 0:
        problems.append(f"{name} lost {subscriber['lost']} of {sent}")
    if subscriber["unique"] != sent:
        problems.append(f"{name} received {subscriber['unique']} distinct of {sent}")
    return problems


# ---------------------------------------------------------------------------------------------
# The regression gate


def metric_value(report, path):
    """A figure by dotted path, list items by index: `subscribers.0.throughput.seconds`."""
    value = report
    for part in path.split("."):
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise GateError(f"the report has no {path} (no '{part}')")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GateError(f"{path} is not a number: {value!r}")
    return value


def run_key(report):
    """What identifies a smoke run in a saved report: transport, mode, and ipc for zmq."""
    settings = report.get("settings", {})
    addresses = report.get("endpoint", {}).get("local_addresses", [])
    ipc = any(str(address).startswith("ipc://") for address in addresses)
    return (settings.get("transport"), settings.get("mode"), ipc)


def check_baseline(arguments):
    """Before any run: the baseline is readable and has the metric (a typo is exit 2, not a
    regression)."""
    if not arguments.baseline:
        return
    baseline = read_report(arguments.baseline)
    if baseline is None:
        raise GateError(f"cannot read a JSON report from {arguments.baseline}")
    if "publisher" not in baseline:
        raise GateError(f"{arguments.baseline} is not a publisher's report")
    metric_value(baseline, arguments.metric)


def higher_is_better(arguments):
    if arguments.higher_is_better:
        return True
    if arguments.lower_is_better:
        return False
    return "per_second" in arguments.metric


def gate(arguments, results):
    """One line saying how the chosen figure compares; GateError if it got too much worse."""
    baseline = read_report(arguments.baseline)
    if baseline is None:
        raise GateError(f"cannot read a JSON report from {arguments.baseline}")
    key = run_key(baseline)
    matches = [outcome.report for _, _, outcome, _ in results
               if outcome.report and run_key(outcome.report) == key]
    if not matches:
        raise GateError(f"no smoke run matches the baseline's transport and mode {key[:2]}")
    before = metric_value(baseline, arguments.metric)
    now = metric_value(matches[0], arguments.metric)
    if before <= 0:
        raise GateError(f"baseline {arguments.metric} is {before}: nothing to compare with")
    ratio = now / before
    better_high = higher_is_better(arguments)
    worse_ratio = (before / now if now > 0 else float("inf")) if better_high else ratio
    line = (f"{arguments.metric}: {now:g} now, {before:g} in the baseline (x{ratio:.2f}; "
            f"{'higher' if better_high else 'lower'} is better; allowed {arguments.max_ratio}x "
            "worse)")
    if worse_ratio > arguments.max_ratio:
        raise GateError("regression: " + line)
    return line


# ---------------------------------------------------------------------------------------------
# Summary


def format_ns(value):
    for unit, scale in (("ms", 1e6), ("us", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} ns"


def summary_row(label, spec, outcome, problems, retried):
    report = outcome.report or {}
    publisher = report.get("publisher")
    subscribers = report.get("subscribers") or [{}]
    verdict = "FAIL" if problems else ("PASS on retry" if label in retried else "PASS")
    if not publisher:
        return f"| {label} | {spec.setup.transport} | {spec.mode} | {verdict} |" + " |" * 7
    one_way = publisher["latency"]["one_way_ns"]
    rate = subscribers[0].get("throughput", {}).get("messages_per_second", 0)
    return (f"| {label} | {spec.setup.transport} | {spec.mode} | {verdict} | "
            f"{publisher['messages_sent']:,} | {sum(s.get('lost', 0) for s in subscribers):,} | "
            f"{publisher['echoes_received']:,}/{publisher['probes_sent']:,} | "
            f"{format_ns(one_way['p50'])} | {format_ns(one_way['p99'])} | {rate:,.0f} | "
            f"{outcome.elapsed_seconds:.1f} s |")


def summary_markdown(results, retried, skipped, gate_line, elapsed, host):
    lines = ["# netprof smoke benchmark", "",
             f"{host}. {len(results)} runs in {elapsed:.1f} s; each: 128 B payload, "
             f"{SEND_HZ} msg/s for {DURATION_SECONDS:g} s after {WARMUP_SECONDS:g} s of warm-up "
             "(ping-pong: back to back), one subscriber, over harness.", "",
             "| run | transport | mode | verdict | sent | lost | echoes/probes | one-way p50 "
             "| one-way p99 | msg/s | time |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [summary_row(label, spec, outcome, problems, retried)
              for label, spec, outcome, problems in results]
    failures = [(label, problems) for label, _, _, problems in results if problems]
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- {label}: {'; '.join(problems)}" for label, problems in failures]
    if retried:
        lines += ["", "## Passed on retry (the first attempt failed)", ""]
        lines += [f"- {label}: {'; '.join(problems)}" for label, problems in retried.items()]
    if skipped:
        lines += ["", "## Skipped", ""] + [f"- {line}" for line in skipped]
    if gate_line:
        lines += ["", "## Regression gate", "", f"- {gate_line}"]
    return "\n".join(lines) + "\n"


def host_line(results):
    for _, _, outcome, _ in results:
        if outcome.report:
            host = outcome.report["host"]
            return (f"{host['cpu_model']}, {host['cores']} cores, {host['kernel']}, clock "
                    f"{host['clock_source']}, netprof {outcome.report['tool']['version']} "
                    f"{outcome.report['tool']['build_type']}")
    return "host unknown (no report)"


# ---------------------------------------------------------------------------------------------
# Main


def parse_arguments(argv):
    parser = harness.tool_arguments(
        "Smoke benchmark: every transport over loopback; asserts SUCCESS, zero loss and every "
        "probe echoed.",
        "Exit status: 0 passed, 1 a check or the regression gate failed, 2 bad arguments or "
        "netprof could not be run.", "results/smoke", "summary.md and the JSON reports")
    parser.add_argument("--baseline", help="a publisher JSON report from an earlier smoke run")
    parser.add_argument("--metric", default="publisher.latency.one_way_ns.p50",
                        help="dotted path of the figure to compare (default: %(default)s)")
    parser.add_argument("--max-ratio", type=float, default=1.5,
                        help="fail when the figure is worse by more than this factor "
                             "(default: %(default)s)")
    parser.add_argument("--no-retry", action="store_true",
                        help="fail at once: do not run a failed run a second time")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", action="store_true",
                           help="the metric is a rate (default: guessed from 'per_second')")
    direction.add_argument("--lower-is-better", action="store_true")
    arguments = parser.parse_args(argv)
    if not arguments.max_ratio >= 1:
        parser.error("--max-ratio must be at least 1")
    return arguments


def run_all(arguments, runs, namespace):
    """Runs each smoke run in turn; returns [(label, spec, outcome, problems)] and
    {label: the first attempt's problems} for the runs that passed only on a second attempt."""
    results, retried = [], {}
    attempts = 1 if arguments.no_retry else 2
    for label, spec in runs:
        prefix = namespace.command_prefix() if spec.setup.needs_namespace else ()
        first_problems = None
        for attempt in range(1, attempts + 1):
            print(f"smoke: {label} ...", end="", flush=True)
            outcome = harness.run(arguments.netprof, spec, arguments.out, label, prefix=prefix)
            problems = check_outcome(outcome, spec)
            print(" PASS" if not problems else " FAIL: " + "; ".join(problems), flush=True)
            if not problems:
                break
            # One stall of a loaded CI machine can lose a datagram or an echo; a clean second
            # run shows the transport works, and the summary still reports the first failure.
            first_problems = first_problems or problems
        if first_problems and not problems:
            retried[label] = first_problems
        results.append((label, spec, outcome, problems))
    return results, retried


def leave_out(runs, needs, reason):
    """The runs that do not need what could not be had, and a skipped line for each that does."""
    skipped = [f"{label}: {reason}" for label, spec in runs if needs(spec.setup)]
    for line in skipped:
        print(f"smoke: skipping {line}")
    return [(label, spec) for label, spec in runs if not needs(spec.setup)], skipped


def open_namespace(runs):
    """(namespace or None, runs it allows, skipped lines)."""
    namespace, reason = services.namespace_for([spec.setup for _, spec in runs], "smoke")
    if reason is None:
        return namespace, runs, []
    return (None, *leave_out(runs, lambda setup: setup.needs_namespace, reason))


def open_roudi(runs):
    """(the RouDi the iceoryx runs use, or None; runs it allows; skipped lines)."""
    roudi, reason = services.roudi_for([spec.setup for _, spec in runs])
    if reason is None:
        return roudi, runs, []
    return (None, *leave_out(runs, lambda setup: setup.transport == "iceoryx", reason))


def main(argv):
    arguments = parse_arguments(argv)
    started = time.monotonic()
    try:
        built = harness.list_transports(arguments.netprof)
    except harness.SetupError as error:
        print(f"smoke: {error}", file=sys.stderr)
        return 2
    try:
        check_baseline(arguments)
    except GateError as error:
        print(f"smoke: {error}", file=sys.stderr)
        return 2
    os.makedirs(arguments.out, exist_ok=True)
    namespace, runs, skipped = open_namespace(smoke_runs(built))
    roudi, runs, skipped_without_roudi = open_roudi(runs)
    skipped += skipped_without_roudi
    try:
        results, retried = run_all(arguments, runs, namespace)
    finally:
        if namespace:
            namespace.delete()
        if roudi:
            roudi.stop()
    gate_line, gate_failed = "", False
    if arguments.baseline:
        try:
            gate_line = gate(arguments, results)
        except GateError as error:
            gate_line, gate_failed = f"FAIL: {error}", True
        print(f"smoke: gate {gate_line}")
    elapsed = time.monotonic() - started
    summary = summary_markdown(results, retried, skipped, gate_line, elapsed,
                               host_line(results))
    try:
        output.write_text(os.path.join(arguments.out, "summary.md"), summary)
    except OSError as error:
        print(f"smoke: {error}", file=sys.stderr)
        return 2
    print(summary)
    if elapsed > BUDGET_SECONDS:
        print(f"smoke: warning: took {elapsed:.0f} s, over the {BUDGET_SECONDS} s budget")
    failed = any(problems for _, _, _, problems in results) or gate_failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
