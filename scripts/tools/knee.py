#!/usr/bin/python3
"""Knee search: for each transport and payload size, the highest send rate (--send-hz) at which
no message is lost, the one-way p99 stays under a target and every subscriber receives the
rate asked for.

Each probe of a rate is a real run (stream mode, a publisher and its subscribers as separate
processes on loopback, as scripts/tools/sweep.py runs them). From --start-hz the rate doubles
until a run fails the criterion (or reaches --max-hz), or halves until one passes (down to
--min-hz); then it bisects, geometrically, between the highest rate that passed and the lowest
that failed until they are within --resolution percent. Each rate is run --repetitions times
(3 by default): it passes when no run loses more than --max-loss or delivers less than
--min-delivered, and the median of the runs' p99 is within --p99-max, so one descheduled run
does not decide a rate's p99. The search assumes that a rate which fails would fail at every
higher rate.

A search that reaches --max-probes before its bounds are within --resolution has not converged:
its knee is only the highest rate that passed so far. knee.md and knee.csv mark it (the column
`converged`, "not converged" in the table), stderr names it, and the exit status is 1.

    scripts/tools/knee.py --transports udp,shm --sizes 64,1K,64K --p99-max 500 --out results/knee

writes into OUT: knee.md and knee.csv (one row per transport and size: the knee, its figures,
the lowest failing rate and why it failed), probes.csv (every run), knee.png (the knee vs payload
size, in msg/s and MB/s; needs matplotlib) and json/ (every run's reports).

Exit status: 0 the search ran and converged for every size (a size at which even --min-hz
fails has no knee, and says so), 1 it ran but some size did not converge (stopped at
--max-probes), 2 bad arguments, 3 netprof failed other than by the criterion (it refused the settings, a
transport error, a run timed out), 130 interrupted. The tables are written either way.
"""

import argparse
import dataclasses
import importlib.util
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_figures as figures  # noqa: E402
import netprof_harness as harness  # noqa: E402
import netprof_knee_tables as tables  # noqa: E402
import netprof_output as output  # noqa: E402
import netprof_tool as tool  # noqa: E402
from netprof_figures import ArgumentError, format_figure, format_size  # noqa: E402

DEFAULT_SIZES = "64,1K,16K,256K"


class NetprofError(Exception):
    """netprof failed for a reason other than the criterion: the search cannot go on (exit 3)."""


# ---------------------------------------------------------------------------------------------
# The search, apart from how a rate is tried (so it can be tested without netprof)


@dataclasses.dataclass
class Knee:
    passed_hz: float   # the highest rate that passed; None: even the lowest tried failed
    failed_hz: float   # the lowest rate that failed; None: the highest tried passed
    tried: list        # (rate, passed) in the order tried
    stopped_by: str    # "resolution", "max-hz", "min-hz" or "max-probes"

    @property
    def converged(self):
        """False when --max-probes cut the search short: the knee is only a lower bound."""
        return self.stopped_by != "max-probes"


def search(passes, start_hz, min_hz, max_hz, resolution, max_probes):
    """The knee of `passes(rate) -> bool` between min_hz and max_hz, starting at start_hz."""
    tried = []

    def check(rate):
        passed = passes(rate)
        tried.append((rate, passed))
        return passed

    good = bad = None
    rate = min(max(start_hz, min_hz), max_hz)
    if check(rate):
        good = rate
        while bad is None and good < max_hz and len(tried) < max_probes:
            rate = min(good * 2, max_hz)
            good, bad = (rate, bad) if check(rate) else (good, rate)
    else:
        bad = rate
        while good is None and bad > min_hz and len(tried) < max_probes:
            rate = max(bad / 2, min_hz)
            good, bad = (rate, bad) if check(rate) else (good, rate)
    while good is not None and bad is not None and len(tried) < max_probes:
        rate = midpoint(good, bad)
        if bad / good <= 1 + resolution or rate is None:
            break
        good, bad = (rate, bad) if check(rate) else (good, rate)
    return Knee(good, bad, tried, stopped_by(good, bad, min_hz, max_hz, resolution))


def midpoint(low, high):
    """The geometric mean of the two rates, rounded to three significant digits (so the table
    reads 1,410 Hz, not 1,414.2136 Hz); None when no such rate lies strictly between them."""
    middle = math.sqrt(low * high)
    digits = 2 - int(math.floor(math.log10(middle)))
    rounded = round(middle, digits)
    if not low < rounded < high:
        rounded = round(middle, digits + 1)
    return rounded if low < rounded < high else None


def stopped_by(good, bad, min_hz, max_hz, resolution):
    if good is None:
        return "min-hz"
    if bad is None:
        return "max-hz" if good >= max_hz else "max-probes"
    return "resolution" if bad / good <= 1 + resolution or midpoint(good, bad) is None \
        else "max-probes"


# ---------------------------------------------------------------------------------------------
# The criterion


@dataclasses.dataclass(frozen=True)
class Criterion:
    p99_max_ns: float
    max_loss_percent: float = 0.0
    min_delivered: float = 0.9  # share of the asked rate every subscriber must receive

    def judge(self, report, send_hz, with_p99=True):
        """"" when the run passes, else why not, in a few words; with_p99 False leaves the p99
        to judge_rate, over every run of the rate."""
        summary = figures.summary_figures(report)
        counted = [s for s in report.get("subscribers", []) if s.get("counters_received")]
        why = []
        if summary["lost"] > 0 and summary["loss_percent"] > self.max_loss_percent:
            why.append(f"lost {summary['lost']:,} ({format_figure(summary['loss_percent'])}%)")
        p99 = summary["one_way_p99_ns"]
        if p99 <= 0:
            why.append("no probe echoed")
        elif p99 > self.p99_max_ns and with_p99:
            why.append(f"p99 {format_figure(p99 / 1e3)} µs")
        slowest = min((s["throughput"]["messages_per_second"] for s in counted), default=0)
        if slowest < self.min_delivered * send_hz:
            why.append(f"received {format_figure(slowest)} msg/s")
        return ", ".join(why)

    def judge_rate(self, p99s):
        """"" when the median of a rate's runs' p99 is within the target, else why not."""
        median = statistics.median(p99s)
        if median <= self.p99_max_ns:
            return ""
        of_runs = f" (median of {len(p99s)} runs)" if len(p99s) > 1 else ""
        return f"p99 {format_figure(median / 1e3)} µs{of_runs}"


@dataclasses.dataclass
class Run:
    setup: object
    size: int
    send_hz: float
    repetition: int
    why_failed: str    # "" when it passed
    report: dict


@dataclasses.dataclass
class RateVerdict:
    why_failed: str    # "" when the rate passed
    p99_ns: float      # the median of its runs' one-way p99 (None: a run failed before it)


def try_rate(arguments, criterion, setup, size, send_hz, prefix, runs, verdicts):
    """Runs every repetition of one rate (stopping at the first that loses or delivers too
    little), then judges the median of their p99; True if the rate passed, its verdict in
    `verdicts`. NetprofError when netprof fails for another reason than the criterion."""
    p99s = []
    for repetition in range(1, arguments.repetitions + 1):
        spec = harness.RunSpec(
            setup=setup, mode="stream", payload_size=size, subscribers=arguments.subscribers,
            send_hz=send_hz, duration_seconds=arguments.duration, warmup_seconds=arguments.warmup,
            queue_length=arguments.queue_length or harness.queue_length_for(size),
            extra_args=arguments.netprof_args)
        stem = f"{setup.name}-{size}-{send_hz:g}hz-r{repetition}"
        print(f"knee: {setup.name} {format_size(size)} at {format_figure(send_hz)} msg/s ...",
              end="", file=sys.stderr, flush=True)
        outcome = harness.run(arguments.netprof, spec, os.path.join(arguments.out, "json"), stem,
                              prefix=prefix)
        if netprof_failed(outcome):
            print(" netprof failed", file=sys.stderr)
            raise NetprofError(f"{setup.name} {format_size(size)} at {send_hz:g} msg/s: "
                               f"{outcome.reason or 'no report'}")
        why = outcome.reason if not outcome.ok else criterion.judge(outcome.report, send_hz)
        runs.append(Run(setup, size, send_hz, repetition, why, outcome.report))
        print(f" {'FAIL: ' + why if why else 'pass'}", file=sys.stderr, flush=True)
        fatal = outcome.reason if not outcome.ok else criterion.judge(
            outcome.report, send_hz, with_p99=False)
        if fatal:
            verdicts[send_hz] = RateVerdict(fatal, None)
            return False
        p99s.append(figures.summary_figures(outcome.report)["one_way_p99_ns"])
    verdicts[send_hz] = RateVerdict(criterion.judge_rate(p99s), statistics.median(p99s))
    return not verdicts[send_hz].why_failed


def netprof_failed(outcome):
    """True unless the run measured something: it succeeded, or netprof's own verdict failed
    it (exit 1, e.g. no probe came back), which is the rate failing, not netprof."""
    if outcome.report is None:
        return True
    return not outcome.ok and outcome.exit_code != 1


# ---------------------------------------------------------------------------------------------
# Command line and main


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="For each transport and payload size, the highest --send-hz with no loss "
        "and one-way p99 under a target, by bisection over real runs on loopback.",
        epilog="Exit status: 0 the search ran and converged for every size, 1 some size did not "
        "converge (stopped at --max-probes; marked in knee.md and knee.csv), 2 bad arguments, 3 "
        "netprof failed other than by the criterion, 130 interrupted.")
    add = parser.add_argument
    add("--netprof", default=harness.default_netprof(), help="netprof binary (default: "
        "netprof on PATH, else this checkout's build/netprof; now %(default)s)")
    add("--out", help="folder for knee.md, knee.csv, probes.csv, knee.png and json/ "
        "(default: results/knee-DATE-TIME)")
    add("--transports", nargs="+", metavar="NAME", help="as sweep.py: comma- or space-separated "
        "(default: every transport of the build)")
    add("--sizes", default=DEFAULT_SIZES, help="payload sizes, comma-separated, K and M "
        "suffixes (default: %(default)s)")
    add("--p99-max", type=float, required=True, metavar="MICROSECONDS",
        help="the highest one-way (RTT/2) p99 that passes, in µs")
    add("--max-loss", type=float, default=0.0, metavar="PERCENT",
        help="the most a subscriber may lose and pass (default: 0, none)")
    add("--min-delivered", type=float, default=90.0, metavar="PERCENT", help="each subscriber "
        "must receive at least this share of the rate asked for (default: %(default)g)")
    add("--start-hz", type=float, default=1000.0, help="first rate tried (default: %(default)g)")
    add("--min-hz", type=float, default=10.0, help="lowest rate tried (default: %(default)g)")
    add("--max-hz", type=float, default=10_000_000.0, help="highest rate tried; when it passes "
        "the knee is reported as at least this (default: %(default)g)")
    add("--resolution", type=float, default=5.0, metavar="PERCENT", help="stop when the lowest "
        "failing rate is within this of the highest passing one (default: %(default)g)")
    add("--max-probes", type=int, default=20, help="most rates tried per size "
        "(default: %(default)s)")
    add("--repetitions", type=int, default=3, help="runs per rate: none may lose or deliver "
        "too little, and the median of their p99 must be within --p99-max, so one unlucky run "
        "does not decide a rate (default: %(default)s)")
    add("-t", "--duration", type=float, default=1.0, help="measured seconds per run "
        "(default: %(default)g)")
    add("--warmup", type=float, default=0.2, help="warm-up seconds per run (default: %(default)g)")
    add("--subscribers", type=int, default=1, help="subscriber processes (default: %(default)s)")
    add("--queue-length", type=int, help="-q (default: max(1000000, 4 x payload size))")
    add("--netprof-args", default="", help="more netprof options for every process, one string")
    arguments = parser.parse_args(argv)
    check_arguments(arguments)
    return arguments


def check_arguments(arguments):
    arguments.sizes = figures.parse_sizes(arguments.sizes)
    positive = {"--p99-max": arguments.p99_max, "--start-hz": arguments.start_hz,
                "--min-hz": arguments.min_hz, "--max-hz": arguments.max_hz,
                "--resolution": arguments.resolution, "--duration": arguments.duration}
    for option, value in positive.items():
        if not (math.isfinite(value) and value > 0):
            raise ArgumentError(f"{option} must be a number above 0")
    if arguments.min_hz > arguments.max_hz or arguments.max_hz > 1e9:
        raise ArgumentError("need --min-hz <= --max-hz <= 1e9 (netprof's own limit)")
    if not 0 <= arguments.max_loss <= 100 or not 0 <= arguments.min_delivered <= 100:
        raise ArgumentError("--max-loss and --min-delivered are percentages, 0 to 100")
    if arguments.max_probes < 1 or arguments.repetitions < 1 or arguments.subscribers < 1:
        raise ArgumentError("--max-probes, --repetitions and --subscribers must be at least 1")
    if arguments.warmup < 0:
        raise ArgumentError("--warmup must be >= 0")
    tool.finish_run_arguments(arguments, "knee")


def search_all(arguments, setups, namespace, rows, runs):
    criterion = Criterion(arguments.p99_max * 1e3, arguments.max_loss,
                          arguments.min_delivered / 100)
    for setup in setups:
        prefix = namespace.command_prefix() if setup.needs_namespace else ()
        for size in arguments.sizes:
            verdicts = {}
            knee = search(lambda rate: try_rate(arguments, criterion, setup, size, rate, prefix,
                                                runs, verdicts),
                          arguments.start_hz, arguments.min_hz, arguments.max_hz,
                          arguments.resolution / 100, arguments.max_probes)
            rows.append(tables.knee_row(setup, size, knee, verdicts, arguments.repetitions))
            print(f"knee: {setup.name} {format_size(size)}: {tables.knee_cell(rows[-1])} msg/s",
                  file=sys.stderr)
            if not knee.converged:
                bound = (f"below {format_figure(knee.failed_hz)}" if knee.failed_hz is not None
                         else "not bounded above")
                print(f"knee: {setup.name} {format_size(size)} did not converge: stopped at "
                      f"--max-probes {arguments.max_probes}, the knee {bound}", file=sys.stderr)


def write_results(arguments, rows, runs):
    tables.write_csv(os.path.join(arguments.out, "knee.csv"), tables.KNEE_COLUMNS, rows)
    tables.write_csv(os.path.join(arguments.out, "probes.csv"), tables.PROBE_COLUMNS,
                     [tables.probe_row(run) for run in runs])
    table = tables.markdown(rows, arguments)
    output.write_text(os.path.join(arguments.out, "knee.md"), table)
    print(table)
    if not any(row["knee_hz"] != "" for row in rows):
        print("knee: no plot: no size has a knee", file=sys.stderr)
        return
    if importlib.util.find_spec("matplotlib") is None:
        print("knee: no plot: matplotlib is missing (Debian: python3-matplotlib)",
              file=sys.stderr)
        return
    tables.plot(rows, os.path.join(arguments.out, "knee.png"),
                f"netprof knee: loss ≤ {arguments.max_loss:g}%, "
                f"one-way p99 ≤ {arguments.p99_max:g} µs")


def main(argv):
    started = tool.start_tool("knee", parse_arguments, argv)
    if started is None:
        return 2
    arguments, setups, namespace = started
    os.makedirs(os.path.join(arguments.out, "json"), exist_ok=True)
    rows, runs, status = [], [], 0
    try:
        search_all(arguments, setups, namespace, rows, runs)
    except NetprofError as error:
        print(f"knee: netprof failed, not by the criterion: {error}", file=sys.stderr)
        status = 3
    except KeyboardInterrupt:
        print("\nknee: interrupted; the tables hold the sizes that finished", file=sys.stderr)
        status = 130
    finally:
        if namespace:
            namespace.delete()
    try:
        write_results(arguments, rows, runs)
    except OSError as error:
        print(f"knee: {error}", file=sys.stderr)
        return 2
    if status == 0 and any(not row["converged"] for row in rows):
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
