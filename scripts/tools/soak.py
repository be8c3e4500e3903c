#!/usr/bin/python3
"""Soak: one long stream-mode run, sampling both sides' resident memory as it goes.

A publisher and a subscriber run as separate netprof processes over loopback (multicast and
broadcast inside a private network namespace, which needs root) for --duration seconds, as
fast as they can by default. Every --interval seconds the script reads VmRSS from
/proc/PID/status of each. netprof's memory must be bounded whatever the run length, so
after a settling time the resident size of each side may grow by at most
max(--tolerance-kib, --tolerance-percent of its size when settled):

    scripts/tools/soak.py --netprof build/netprof --duration 600 --out results/soak

Writes OUT/rss.csv (one row per sample), OUT/summary.md, both JSON reports, and OUT/rss.png
when Debian's python3-matplotlib is there. CI runs a short version (tests/e2e/test_soak.py).

Exit status: 0 both runs ended in SUCCESS and memory stayed flat; 1 memory grew or a run
failed; 2 bad arguments or netprof could not be run. Standard library only (matplotlib
optional).
"""

import csv
import dataclasses
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_harness as harness  # noqa: E402
import netprof_services as services  # noqa: E402
import netprof_output as output  # noqa: E402

STEM = "soak"
ROLES = ("publisher", "subscriber")


@dataclasses.dataclass
class Sample:
    elapsed_seconds: float
    rss_kib: dict  # role -> resident KiB, None once that process has exited


class RssMonitor:
    """Reads each process's VmRSS; what netprof_harness.run calls while the run goes on."""

    def __init__(self, interval_seconds):
        self.interval_seconds = interval_seconds
        self.samples = []
        self._started = None  # the first sample's time, just after the processes started

    def sample(self, processes):
        if self._started is None:
            self._started = time.monotonic()
        # run() lists the publisher first, then its subscribers.
        rss = {role: resident_kib(process.pid) if process.poll() is None else None
               for role, process in zip(ROLES, processes)}
        self.samples.append(Sample(time.monotonic() - self._started, rss))


def resident_kib(pid):
    """VmRSS of a live process in KiB, None when it has gone (or is a zombie without it)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


# ---------------------------------------------------------------------------------------------
# The verdict: flat or growing


@dataclasses.dataclass
class Growth:
    role: str
    settled_kib: int    # the first sample after the settling time
    final_kib: int      # the largest sample after it
    peak_kib: int       # the largest sample of the whole run
    slope_kib_per_minute: float
    allowed_kib: int
    samples: int

    @property
    def grew_kib(self):
        return self.final_kib - self.settled_kib

    @property
    def flat(self):
        return self.grew_kib <= self.allowed_kib


def growth_of(samples, role, settle_seconds, tolerance_kib, tolerance_percent,
              measured_until=float("inf")):
    """How one side's resident size moved after settling and until the measured phase ended
    (after it, each side builds its report, which is not the steady state a soak judges);
    None with too few samples to say."""
    series = [(s.elapsed_seconds, s.rss_kib.get(role)) for s in samples]
    series = [(t, kib) for t, kib in series if kib is not None]
    settled = [(t, kib) for t, kib in series if settle_seconds <= t <= measured_until]
    if len(settled) < 2:
        return None
    settled_kib = settled[0][1]
    allowed = max(tolerance_kib, int(settled_kib * tolerance_percent / 100))
    return Growth(role=role, settled_kib=settled_kib,
                  final_kib=max(kib for _, kib in settled),
                  peak_kib=max(kib for _, kib in series),
                  slope_kib_per_minute=60 * least_squares_slope(settled),
                  allowed_kib=allowed, samples=len(settled))


def least_squares_slope(points):
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return 0.0
    return sum((t - mean_t) * (y - mean_y) for t, y in points) / spread


# ---------------------------------------------------------------------------------------------
# Output


def write_csv(path, samples):
    with output.open_for_writing(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["elapsed_s"] + [f"{role}_rss_kib" for role in ROLES])
        for s in samples:
            writer.writerow([f"{s.elapsed_seconds:.3f}"] +
                            ["" if s.rss_kib.get(role) is None else s.rss_kib[role]
                             for role in ROLES])


def write_plot(path, samples, settle_seconds):
    """rss.png when matplotlib is importable; else a line saying why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plot: python3-matplotlib is not installed for this interpreter"
    figure, axes = plt.subplots(figsize=(8, 4))
    for role in ROLES:
        points = [(s.elapsed_seconds, s.rss_kib[role] / 1024) for s in samples
                  if s.rss_kib.get(role) is not None]
        if points:
            axes.plot([t for t, _ in points], [m for _, m in points], label=role)
    axes.axvline(settle_seconds, color="grey", linestyle=":", label="settled")
    axes.set_xlabel("elapsed (s)")
    axes.set_ylabel("resident memory (MiB)")
    axes.set_ylim(bottom=0)
    axes.legend()
    axes.set_title("netprof soak: resident memory over time")
    figure.tight_layout()
    output.save_figure(figure, path)
    plt.close(figure)
    return ""


def summary_markdown(arguments, outcome, growths, verdict, plot_note):
    lines = [f"# netprof soak: {verdict}", "",
             f"{arguments.transport}, stream mode, {arguments.size} B payloads, send rate "
             f"{'as fast as possible' if not arguments.send_hz else f'{arguments.send_hz:g} Hz'}, "
             f"{arguments.duration:g} s measured; RSS sampled every {arguments.interval:g} s, "
             f"settled after {settle_seconds_for(arguments):g} s.", "",
             "| side | settled | final | peak | grew | allowed | slope | samples |",
             "|---|---|---|---|---|---|---|---|"]
    for role in ROLES:
        g = growths.get(role)
        if g is None:
            lines.append(f"| {role} | too few samples after settling | | | | | | |")
            continue
        lines.append(f"| {role} | {g.settled_kib} KiB | {g.final_kib} KiB | {g.peak_kib} KiB | "
                     f"{g.grew_kib:+d} KiB | {g.allowed_kib} KiB | "
                     f"{g.slope_kib_per_minute:+.1f} KiB/min | {g.samples} |")
    lines.append("")
    run_line = "runs: SUCCESS" if outcome.ok else f"runs: FAIL: {outcome.reason}"
    if outcome.report:
        sent = outcome.report.get("publisher", {}).get("messages_sent")
        if sent is not None:
            run_line += f"; publisher sent {sent} messages"
    lines.append(run_line)
    if plot_note:
        lines.append(plot_note)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Main


def settle_seconds_for(arguments):
    # Start-up (connecting, warm-up, first touch of preallocated buffers) is not growth.
    if arguments.settle is not None:
        return arguments.settle
    return min(30.0, max(2.0, 0.1 * arguments.duration)) + arguments.warmup


def parse_arguments(argv):
    parser = harness.tool_arguments(
        "Soak test: a long stream run; fails when either side's resident memory grows after "
        "settling.",
        "Exit status: 0 flat and SUCCESS, 1 memory grew or a run failed, 2 bad arguments or "
        "netprof could not be run.", "results/soak",
        "rss.csv, summary.md, rss.png and the JSON reports")
    parser.add_argument("--transport", default="udp",
                        help="a transport of `netprof --list-transports`, or zmq-ipc "
                             "(default: %(default)s)")
    parser.add_argument("--duration", type=float, default=600.0,
                        help="measured seconds (default: %(default)s)")
    parser.add_argument("--warmup", type=float, default=1.0,
                        help="warm-up seconds before the measured phase (default: %(default)s)")
    parser.add_argument("--interval", type=float, default=1.0,
                        help="seconds between RSS samples (default: %(default)s)")
    parser.add_argument("--size", type=int, default=128,
                        help="payload bytes (default: %(default)s)")
    parser.add_argument("--send-hz", type=float, default=0.0,
                        help="messages per second; 0 as fast as possible (default: %(default)s)")
    parser.add_argument("--settle", type=float,
                        help="seconds of start-up not judged (default: 10%% of the duration, "
                             "2 to 30 s, plus the warm-up)")
    parser.add_argument("--tolerance-kib", type=int, default=1024,
                        help="growth allowed after settling, in KiB (default: %(default)s)")
    parser.add_argument("--tolerance-percent", type=float, default=2.0,
                        help="or this share of the settled size, if larger "
                             "(default: %(default)s)")
    arguments = parser.parse_args(argv)
    if not arguments.duration > 0 or not arguments.interval > 0 or arguments.warmup < 0:
        parser.error("--duration and --interval must be above 0, --warmup not below 0")
    if arguments.size < 1 or arguments.send_hz < 0 or arguments.tolerance_kib < 0:
        parser.error("--size must be at least 1; --send-hz and --tolerance-kib not below 0")
    if arguments.settle is not None and not 0 <= arguments.settle < arguments.duration:
        parser.error("--settle must be at least 0 and below --duration")
    return arguments


def soak(arguments, setup):
    spec = harness.RunSpec(setup=setup, mode="stream", payload_size=arguments.size,
                            send_hz=arguments.send_hz, duration_seconds=arguments.duration,
                            warmup_seconds=arguments.warmup,
                            queue_length=harness.queue_length_for(arguments.size))
    monitor = RssMonitor(arguments.interval)
    namespace, reason = services.namespace_for([setup], "soak")
    if reason:
        raise harness.SetupError(f"{setup.name}: {reason}")
    roudi, reason = services.roudi_for([setup])
    if reason:
        if namespace:
            namespace.delete()
        raise harness.SetupError(f"{setup.name}: {reason}")
    prefix = namespace.command_prefix() if namespace else ()
    try:
        outcome = harness.run(arguments.netprof, spec, arguments.out, STEM, prefix=prefix,
                               monitor=monitor)
    finally:
        if namespace:
            namespace.delete()
        if roudi:
            roudi.stop()
    return outcome, monitor.samples


def main(argv):
    arguments = parse_arguments(argv)
    try:
        built = harness.list_transports(arguments.netprof)
        [setup] = harness.resolve_setups([arguments.transport], built)
    except harness.SetupError as error:
        print(f"soak: {error}", file=sys.stderr)
        return 2
    os.makedirs(arguments.out, exist_ok=True)
    print(f"soak: {arguments.transport} for {arguments.duration:g} s, sampling RSS every "
          f"{arguments.interval:g} s ...", flush=True)
    try:
        outcome, samples = soak(arguments, setup)
    except harness.SetupError as error:
        print(f"soak: {error}", file=sys.stderr)
        return 2
    settle = settle_seconds_for(arguments)
    measured_until = arguments.warmup + arguments.duration
    growths = {role: growth_of(samples, role, settle, arguments.tolerance_kib,
                               arguments.tolerance_percent, measured_until) for role in ROLES}
    problems = [f"{role}: too few samples after settling" for role, g in growths.items()
                if g is None]
    problems += [f"{g.role} grew {g.grew_kib} KiB after settling (allowed {g.allowed_kib})"
                 for g in growths.values() if g is not None and not g.flat]
    if not outcome.ok:
        problems.append(outcome.reason)
    verdict = "PASS" if not problems else "FAIL: " + "; ".join(problems)
    try:
        write_csv(os.path.join(arguments.out, "rss.csv"), samples)
        plot_note = write_plot(os.path.join(arguments.out, "rss.png"), samples, settle)
        summary = summary_markdown(arguments, outcome, growths, verdict, plot_note)
        output.write_text(os.path.join(arguments.out, "summary.md"), summary)
    except OSError as error:
        print(f"soak: {error}", file=sys.stderr)
        return 2
    print(summary)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
