#!/usr/bin/python3
"""Turns sweep CSVs (scripts/tools/sweep.py) into PNG plots and a Markdown table.

    scripts/tools/plot.py results/s1/sweep.csv [more.csv ...] [--out DIR] [--name NAME]

writes, into DIR (default: the first CSV's folder):
  NAME-latency.png     one-way latency (RTT/2) p50, p99 and max vs payload size
  NAME-throughput.png  messages/s and payload bytes/s vs payload size
  NAME.md              the same figures as Markdown tables, failed points marked

Log-log axes, one line per transport (and per mode or subscriber count when the CSVs mix them).
With repetitions, each line is the median over the runs that succeeded, each run a faint dot.
Failed runs are left out of the plots and marked in the tables.

Exit status: 0 written, 1 no successful point to plot, 2 bad arguments or unreadable CSV.
Needs matplotlib (Debian: python3-matplotlib); everything else is the standard library.
"""

import argparse
import collections
import csv
import importlib.util
import os
import statistics
import sys

LATENCY_PANELS = [("one_way_p50_ns", "p50"), ("one_way_p99_ns", "p99"),
                  ("one_way_max_ns", "max")]
THROUGHPUT_PANELS = [("messages_per_second", "messages/s"),
                     ("payload_bytes_per_second", "payload bytes/s")]
MARKERS = "osD^v<>ph*"
COUNT_COLUMNS = {"lost"}  # whole numbers in the tables, not three significant digits

Point = collections.namedtuple("Point", "series size")


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Reading


def read_rows(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                rows.extend(csv.DictReader(f))
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror}")
    required = {"transport", "payload_size", "status"}
    if not rows:
        raise InputError("no rows in " + ", ".join(paths))
    missing = required - set(rows[0])
    if missing:
        raise InputError(f"{paths[0]} is not a sweep CSV: no column {', '.join(sorted(missing))}")
    return rows


def series_namer(rows):
    """Names lines by transport, adding the mode, subscriber count or host only when the CSVs
    hold more than one, so a single sweep's legend stays short."""
    varying = [column for column in ("mode", "subscribers", "host.hostname")
               if len({row.get(column) or "" for row in rows if row["status"] == "ok"}) > 1]

    def name(row):
        extras = [(row.get(column) or "?") + (" subs" if column == "subscribers" else "")
                  for column in varying]
        return row["transport"] + (f" ({', '.join(extras)})" if extras else "")
    return name


def group_runs(rows):
    """{Point: [rows]} in first-seen order of series, sizes sorted."""
    name = series_namer(rows)
    groups = collections.defaultdict(list)
    for row in rows:
        groups[Point(name(row), int(row["payload_size"]))].append(row)
    return groups


def ok_values(runs, column):
    values = []
    for row in runs:
        if row["status"] == "ok" and row.get(column, "") != "":
            values.append(float(row[column]))
    return values


def series_order(groups):
    order = []
    for point in groups:
        if point.series not in order:
            order.append(point.series)
    return order


def host_facts(rows):
    """"AMD EPYC, 2 cores, Linux 6.1.0, clock tsc" from the first row that has them."""
    for row in rows:
        if row.get("host.cpu_model"):
            return (f"{row['host.cpu_model']}, {row.get('host.cores', '?')} cores, "
                    f"{row.get('host.kernel', '')}, clock {row.get('host.clock_source', '?')}")
    return "host unknown (no run succeeded)"


def sweep_dates(rows):
    dates = sorted({row.get("started_at", "")[:10] for row in rows if row.get("started_at")})
    if not dates:
        return ""
    return dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"


def send_rates(rows):
    """How fast the publishers were asked to send: throughput means little without it."""
    rates = {float(row["send_hz"]) for row in rows if row.get("send_hz", "") != ""}
    if rates == {0.0}:
        return "as fast as possible"
    if len(rates) == 1:
        return f"paced at {format_figure(rates.pop())} msg/s"
    return "paced per size (see send_hz)"


def modes(rows):
    return ", ".join(sorted({row.get("mode", "") for row in rows if row.get("mode")}))


# ---------------------------------------------------------------------------------------------
# Formatting


def format_size(size):
    for unit, scale in (("MiB", 1024 ** 2), ("KiB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def format_figure(value):
    """Three significant digits, never scientific notation (as netprof's own report)."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


# ---------------------------------------------------------------------------------------------
# Plots


def plot_panels(groups, panels, scale, unit, title, path, share_y):
    import matplotlib
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6), sharey=share_y,
                                squeeze=False)
    axes = axes[0]
    plotted = False
    for series_index, series in enumerate(series_order(groups)):
        marker = MARKERS[series_index % len(MARKERS)]
        color = f"C{series_index % 10}"
        sizes = sorted(point.size for point in groups if point.series == series)
        for axis, (column, label) in zip(axes, panels):
            xs, medians = [], []
            for size in sizes:
                values = [v * scale for v in ok_values(groups[Point(series, size)], column)]
                values = [v for v in values if v > 0]  # log scale: 0 means "not measured"
                if not values:
                    continue
                axis.scatter([size] * len(values), values, color=color, alpha=0.25, s=10)
                xs.append(size)
                medians.append(statistics.median(values))
            if xs:
                axis.plot(xs, medians, marker=marker, color=color, label=series, linewidth=1.4,
                          markersize=5)
                plotted = True
    for axis, (column, label) in zip(axes, panels):
        axis.set_xscale("log", base=2)
        axis.xaxis.set_major_locator(LogLocator(base=4, numticks=30))  # 64 B, 256 B, 1 KiB, ...
        axis.set_yscale("log")
        axis.set_title(label)
        axis.set_xlabel("payload size")
        axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: format_size(int(x))))
        axis.tick_params(axis="x", labelrotation=45, labelsize=8)
        axis.grid(True, which="major", alpha=0.4)
        axis.grid(True, which="minor", alpha=0.12)
    for axis in axes if not share_y else axes[:1]:
        axis.set_ylabel(unit)
    if plotted:
        axes[0].legend(fontsize=8)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return plotted


# ---------------------------------------------------------------------------------------------
# Markdown


class Footnotes:
    """Numbers each distinct failure reason once, for the table's notes."""

    def __init__(self):
        self.reasons = {}

    def mark(self, runs):
        failed = [row for row in runs if row["status"] != "ok"]
        if not failed:
            return ""
        marks = []
        for row in failed:
            reason = row.get("reason") or "failed"
            number = self.reasons.setdefault(reason, len(self.reasons) + 1)
            if f"[{number}]" not in marks:
                marks.append(f"[{number}]")
        return "".join(marks)

    def lines(self):
        return [f"[{number}] {reason}" for reason, number in self.reasons.items()]


def table(groups, column, scale, footnotes):
    series_list = series_order(groups)
    sizes = sorted({point.size for point in groups})
    lines = ["| payload | " + " | ".join(series_list) + " |",
             "|---:|" + "---:|" * len(series_list)]
    for size in sizes:
        cells = []
        for series in series_list:
            runs = groups.get(Point(series, size), [])
            cells.append(table_cell(runs, column, scale, footnotes))
        lines.append(f"| {format_size(size)} | " + " | ".join(cells) + " |")
    return lines


def table_cell(runs, column, scale, footnotes):
    """The median over successful runs; FAIL when none succeeded; a note mark for failures;
    (k/n) when only some of n repetitions succeeded."""
    if not runs:
        return ""
    values = ok_values(runs, column)
    mark = footnotes.mark(runs)
    if not values:
        return f"FAIL {mark}"
    median = statistics.median(values) * scale
    text = f"{median:,.0f}" if column in COUNT_COLUMNS else format_figure(median)
    if mark:
        text += f" ({len(values)}/{len(runs)} ok) {mark}"
    return text


def markdown(rows, groups, title):
    footnotes = Footnotes()
    sections = [
        ("One-way latency p50 (RTT/2), µs", "one_way_p50_ns", 1e-3),
        ("One-way latency p99 (RTT/2), µs", "one_way_p99_ns", 1e-3),
        ("One-way latency max (RTT/2), µs", "one_way_max_ns", 1e-3),
        ("Messages per second (per subscriber)", "messages_per_second", 1),
        ("Payload MB/s (per subscriber, 1 MB = 10^6 B)", "payload_bytes_per_second", 1e-6),
        ("Lost messages (all subscribers)", "lost", 1),
    ]
    repetitions = max(int(row.get("repetition") or 1) for row in rows)
    lines = [f"# {title.splitlines()[0]}", "",
             f"Host: {host_facts(rows)}. Date: {sweep_dates(rows) or 'unknown'}. "
             f"Mode: {modes(rows)}, {send_rates(rows)}. Each cell is the median of "
             f"{repetitions} repetition(s); FAIL: no repetition succeeded (reason in the notes).",
             ""]
    for heading, column, scale in sections:
        lines += [f"## {heading}", ""] + table(groups, column, scale, footnotes) + [""]
    if footnotes.reasons:
        lines += ["## Notes", ""] + [f"- {line}" for line in footnotes.lines()] + [""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Main


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
    title = (f"{arguments.title} {modes(rows)}, {send_rates(rows)}, {sweep_dates(rows)}\n"
             f"{host_facts(rows)}")
    base = os.path.join(arguments.out, arguments.name)
    plotted = plot_panels(groups, LATENCY_PANELS, 1e-3, "one-way latency (RTT/2), µs",
                          title, base + "-latency.png", share_y=True)
    plot_panels(groups, THROUGHPUT_PANELS, 1, "per second, per subscriber", title,
                base + "-throughput.png", share_y=False)
    with open(base + ".md", "w") as f:
        f.write(markdown(rows, groups, title))
    for suffix in ("-latency.png", "-throughput.png", ".md"):
        print(base + suffix)
    if not plotted:
        print("plot: no successful point: the plots are empty", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
