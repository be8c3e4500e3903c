#!/usr/bin/python3
"""Turns sweep CSVs (scripts/tools/sweep.py) into PNG plots and a Markdown table.

    scripts/tools/plot.py results/s1/sweep.csv [more.csv ...] [--out DIR] [--name NAME]

writes, into DIR (default: the first CSV's folder):
  NAME-latency.png      one-way latency (RTT/2) p50, p99 and max vs payload size
  NAME-throughput.png   messages/s, payload MB/s and loss % vs payload size; a red ring marks
                        every point at which a run lost messages
  NAME-subscribers.png  only when a sweep ran more than one subscriber: each subscriber's own
                        one-way p50 and p99 as box plots per subscriber count
  NAME.md               the same figures as Markdown tables, failed points marked

Log-log axes, one line per transport (and per mode or subscriber count when the CSVs mix them).
With repetitions, each line is the median over the runs that succeeded, each run a faint dot.
A size at which no run succeeded breaks the line instead of being bridged; failed runs are
marked in the tables.

Exit status: 0 written, 1 no successful point to plot, 2 bad arguments or unreadable CSV.
Needs matplotlib (Debian: python3-matplotlib); everything else is the standard library.
"""

import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_output as output  # noqa: E402
from netprof_sweep_plots import (LATENCY_PANELS, THROUGHPUT_PANELS, plot_panels,  # noqa: E402
                                 plot_subscribers)
from netprof_sweep_rows import (InputError, group_runs, host_facts, modes, read_rows,  # noqa: E402
                                send_rates, shows_subscribers, sweep_dates)
from netprof_sweep_tables import markdown  # noqa: E402


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="Plot netprof sweep CSVs (scripts/tools/sweep.py).")
    parser.add_argument("csv", nargs="+", help="sweep CSV files; rows are combined")
    parser.add_argument("--out", help="output folder (default: the first CSV's folder)")
    parser.add_argument("--name", help="file name prefix (default: the first CSV's name, "
                        "e.g. sweep for sweep.csv)")
    parser.add_argument("--title", default="netprof", help="first words of every title")
    arguments = parser.parse_args(argv)
    arguments.out = arguments.out or os.path.dirname(os.path.abspath(arguments.csv[0]))
    arguments.name = arguments.name or os.path.splitext(os.path.basename(arguments.csv[0]))[0]
    return arguments


def main(argv):
    arguments = parse_arguments(argv)
    # Checked before any work: a clear message instead of a traceback.
    if importlib.util.find_spec("matplotlib") is None:
        print("plot: matplotlib is missing; on Debian: apt-get install python3-matplotlib "
              "(and run this script with /usr/bin/python3)", file=sys.stderr)
        return 2
    try:
        rows = read_rows(arguments.csv)
    except InputError as error:
        print(f"plot: {error}", file=sys.stderr)
        return 2
    groups = group_runs(rows)
    os.makedirs(arguments.out, exist_ok=True)
    try:
        return write_outputs(arguments, rows, groups)
    except OSError as error:
        print(f"plot: {error}", file=sys.stderr)
        return 2


def write_outputs(arguments, rows, groups):
    title = (f"{arguments.title} {modes(rows)}, {send_rates(rows)}, {sweep_dates(rows)}\n"
             f"{host_facts(rows)}")
    base = os.path.join(arguments.out, arguments.name)
    written = ["-latency.png", "-throughput.png", ".md"]
    plotted = plot_panels(groups, LATENCY_PANELS, title, base + "-latency.png", share_y=True)
    plot_panels(groups, THROUGHPUT_PANELS, title, base + "-throughput.png", share_y=False)
    if plotted and shows_subscribers(rows):
        plot_subscribers(rows, title, base + "-subscribers.png")
        written.insert(2, "-subscribers.png")
    output.write_text(base + ".md", markdown(rows, groups, title))
    for suffix in written:
        print(base + suffix)
    if not plotted:
        print("plot: no successful point: the plots are empty", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
