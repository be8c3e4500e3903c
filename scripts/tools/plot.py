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
import collections
import dataclasses
import importlib.util
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_input as loader  # noqa: E402
import netprof_output as output  # noqa: E402
from netprof_figures import format_figure, format_size, payload_size_axis, pyplot  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Panel:
    column: str
    title: str
    scale: float
    unit: str
    log: bool = True
    marks_loss: bool = False  # a red ring around each point at which a run lost messages


LATENCY_UNIT = "one-way latency (RTT/2), µs"
LATENCY_PANELS = [Panel("one_way_p50_ns", "p50", 1e-3, LATENCY_UNIT),
                  Panel("one_way_p99_ns", "p99", 1e-3, LATENCY_UNIT),
                  Panel("one_way_max_ns", "max", 1e-3, LATENCY_UNIT)]
LOSS_PANEL = Panel("loss_percent", "lost (worst subscriber)", 1, "% of messages sent", log=False)
THROUGHPUT_PANELS = [
    Panel("messages_per_second", "messages received/s", 1, "msg/s, per subscriber",
          marks_loss=True),
    Panel("payload_bytes_per_second", "payload received", 1e-6,
          "MB/s (10^6 B/s), per subscriber", marks_loss=True),
    LOSS_PANEL]
SUBSCRIBER_PANELS = [("p50", "one-way p50"), ("p99", "one-way p99")]
# Box plots for at most this many payload sizes (the smallest, the largest, some between).
MAX_BOX_SIZES = 4
# Eleven markers against matplotlib's ten colours: no two of the first 110 series look alike
# (with ten of each, the eleventh transport of a sweep drew exactly as the first).
MARKERS = "osD^v<>ph*X"
COUNT_COLUMNS = {"lost"}  # whole numbers in the tables, not three significant digits
DOT_STYLE = {"alpha": 0.25, "s": 10}
LOSS_RING_STYLE = {"s": 90, "facecolors": "none", "edgecolors": "red", "linewidths": 1.2}

Point = collections.namedtuple("Point", "series size")


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Reading


def read_rows(paths):
    rows = []
    required = {"transport", "payload_size", "status"}
    for path in paths:
        try:
            found = loader.read_csv(loader.read_text(path), path)
            missing = required - set(found[0]) if found else set()
            if missing:
                raise InputError(f"{path} is not a sweep CSV: no column "
                                 f"{', '.join(sorted(missing))}")
            rows.extend(checked_row(row, f"{path} line {line}")
                        for line, row in enumerate(found, 2))
        except loader.InputError as error:
            raise InputError(str(error)) from None
    if not rows:
        raise InputError("no rows in " + ", ".join(paths))
    return rows


# What the plots and tables read as numbers: checked here, where the file and line are known.
FIGURE_COLUMNS = ("one_way_p50_ns", "one_way_p99_ns", "one_way_max_ns", "messages_per_second",
                  "payload_bytes_per_second", "lost", "loss_percent")


def checked_row(row, where):
    """`row` when every value the plot reads from it is what a sweep writes."""
    if not row["transport"]:
        raise loader.InputError(f"{where}: no transport")
    loader.whole(row["payload_size"], f"{where}: payload_size", minimum=1)
    for column in ("repetition", "subscribers"):
        if row.get(column):
            loader.whole(row[column], f"{where}: {column}")
    loader.optional_number(row.get("send_hz"), f"{where}: send_hz")
    if row["status"] != "ok":
        return row
    for column in FIGURE_COLUMNS:
        loader.optional_number(row.get(column), f"{where}: {column}")
    for column, value in row.items():
        if column.startswith("subscribers.") and ".latency.one_way_ns." in column:
            loader.optional_number(value, f"{where}: {column}")
    return row


def series_namer(rows, columns=("mode", "subscribers", "host.hostname")):
    """Names lines by transport, adding the mode, subscriber count or host only when the CSVs
    hold more than one, so a single sweep's legend stays short."""
    varying = [column for column in columns
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


def series_line(groups, series, panel):
    """(sizes, medians, dots) of one series in one panel. Every size the series ran is on the
    line; where no run succeeded (or, on a log axis, none measured anything) the median is NaN,
    which breaks the line there instead of joining its neighbours across the gap. `dots` are
    (size, value) of each successful run."""
    sizes = sorted(point.size for point in groups if point.series == series)
    medians, dots = [], []
    for size in sizes:
        values = [value * panel.scale for value in ok_values(groups[Point(series, size)],
                                                              panel.column)]
        if panel.log:
            values = [value for value in values if value > 0]  # 0 means "not measured"
        dots += [(size, value) for value in values]
        medians.append(statistics.median(values) if values else math.nan)
    return sizes, medians, dots


def lossy_sizes(groups, series):
    """Sizes at which at least one successful run of the series lost messages."""
    return sorted(point.size for point, runs in groups.items()
                  if point.series == series and any(value > 0 for value in
                                                    ok_values(runs, "loss_percent")))


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
# Plots vs payload size


def plot_panels(groups, panels, title, path, share_y):
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.8),
                                sharey=share_y, squeeze=False)
    axes = axes[0]
    plotted = marked_loss = False
    for series_index, series in enumerate(series_order(groups)):
        style = {"color": f"C{series_index % 10}"}
        lossy = lossy_sizes(groups, series)
        for axis, panel in zip(axes, panels):
            sizes, medians, dots = series_line(groups, series, panel)
            if not dots:
                continue
            axis.scatter([size for size, _ in dots], [value for _, value in dots],
                         **style, **DOT_STYLE)
            axis.plot(sizes, medians, marker=MARKERS[series_index % len(MARKERS)], label=series,
                      linestyle="-" if series_index < 10 else "--", linewidth=1.4, markersize=5,
                      **style)
            plotted = True
            if panel.marks_loss:
                marked = [(s, m) for s, m in zip(sizes, medians)
                          if s in lossy and not math.isnan(m)]
                axis.scatter([s for s, _ in marked], [m for _, m in marked], **LOSS_RING_STYLE)
                marked_loss = marked_loss or bool(marked)
    for axis, panel in zip(axes, panels):
        payload_size_axis(axis)
        axis.set_yscale("log" if panel.log else "linear")
        if not panel.log:
            axis.set_ylim(bottom=0)
        axis.set_title(panel.title)
    for axis, panel in zip(axes if not share_y else axes[:1], panels):
        axis.set_ylabel(panel.unit)
    if plotted:
        add_legend(axes[0], marked_loss)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    output.save_figure(figure, path, dpi=110)
    plt.close(figure)
    return plotted


def add_legend(axis, marked_loss):
    """The series, then what the faint dots and the red rings mean."""
    from matplotlib.lines import Line2D
    handles, labels = axis.get_legend_handles_labels()
    handles.append(Line2D([], [], linestyle="none", marker="o", color="gray", alpha=0.4,
                          markersize=4))
    labels.append("one run (median: line)")
    if marked_loss:
        handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                              markeredgecolor="red", markersize=9))
        labels.append("a run lost messages")
    axis.legend(handles, labels, fontsize=8)


# ---------------------------------------------------------------------------------------------
# Per-subscriber latency vs subscriber count


def subscriber_counts(rows):
    return sorted({int(row["subscribers"]) for row in rows
                   if row["status"] == "ok" and row.get("subscribers", "").isdigit()})


def per_subscriber_latency(row, percentile):
    """Each subscriber's own one-way latency figure (ns) in one run's row; subscribers whose
    probes were never echoed are left out."""
    values = []
    index = 0
    while f"subscribers.{index}.id" in row and row[f"subscribers.{index}.id"] != "":
        prefix = f"subscribers.{index}.latency.one_way_ns."
        if float(row.get(prefix + "count") or 0) > 0:
            values.append(float(row[prefix + percentile]))
        index += 1
    return values


def box_sizes(rows):
    sizes = sorted({int(row["payload_size"]) for row in rows if row["status"] == "ok"})
    if len(sizes) <= MAX_BOX_SIZES:
        return sizes
    step = (len(sizes) - 1) / (MAX_BOX_SIZES - 1)
    return [sizes[round(index * step)] for index in range(MAX_BOX_SIZES)]


def box_data(rows, percentile):
    """{(series, size, count): [per-subscriber values in µs]} over every successful run."""
    name = series_namer(rows, columns=("mode", "host.hostname"))
    data = collections.defaultdict(list)
    for row in rows:
        if row["status"] == "ok":
            key = (name(row), int(row["payload_size"]), int(row["subscribers"]))
            data[key] += [value * 1e-3 for value in per_subscriber_latency(row, percentile)]
    return data


def plot_subscribers(rows, title, path):
    """One row of panels per payload size; in each, a group of boxes per subscriber count, one
    box per transport: each box holds one value per subscriber per run. A box of one or two
    values is drawn as its points, in its series' colour, since a box of them is only a line;
    the legend goes below the panels, where it covers no data."""
    plt = pyplot()
    sizes, counts = box_sizes(rows), subscriber_counts(rows)
    figure, axes = plt.subplots(len(sizes), len(SUBSCRIBER_PANELS), squeeze=False,
                                figsize=(5.6 * len(SUBSCRIBER_PANELS), 3.4 * len(sizes) + 0.8))
    series_seen = []
    for column, (percentile, label) in enumerate(SUBSCRIBER_PANELS):
        data = box_data(rows, percentile)
        series_list = list(dict.fromkeys(series for series, _, _ in data))
        series_seen += [series for series in series_list if series not in series_seen]
        width = 0.8 / max(1, len(series_list))
        for row_index, size in enumerate(sizes):
            axis = axes[row_index][column]
            for index, series in enumerate(series_list):
                boxes = [(position, data.get((series, size, count), []))
                         for position, count in enumerate(counts)]
                boxes = [(p - 0.4 + width * (index + 0.5), v) for p, v in boxes if v]
                draw_series_boxes(axis, boxes, width, index)
            axis.set_xticks(range(len(counts)), [str(count) for count in counts])
            axis.set_xlim(-0.6, len(counts) - 0.4)
            axis.set_yscale("log")
            axis.set_xlabel("subscribers")
            axis.set_ylabel("µs, each subscriber's own")
            axis.set_title(f"{label}, {format_size(size)}")
            axis.grid(True, axis="y", alpha=0.3)
    legend_rows = add_figure_legend(figure, series_seen)
    figure.suptitle(title, fontsize=10)
    legend_height = min(0.4, (0.25 + 0.22 * legend_rows) / figure.get_figheight())
    figure.tight_layout(rect=(0, legend_height, 1, 1))
    output.save_figure(figure, path, dpi=110)
    plt.close(figure)


def series_colour(index):
    return f"C{index % 10}"


# A box needs this many values to say more than its points do.
FEWEST_FOR_A_BOX = 3


def draw_series_boxes(axis, boxes, width, index):
    """One series' boxes (position, values) in its own colour; few values as points."""
    colour = series_colour(index)
    marker = MARKERS[index % len(MARKERS)]
    full = [(p, v) for p, v in boxes if len(v) >= FEWEST_FOR_A_BOX]
    few = [(p, v) for p, v in boxes if len(v) < FEWEST_FOR_A_BOX]
    if full:
        drawn = axis.boxplot([v for _, v in full], positions=[p for p, _ in full],
                             widths=width * 0.85, patch_artist=True, manage_ticks=False,
                             medianprops={"color": colour, "linewidth": 2},
                             flierprops={"markeredgecolor": colour},
                             whiskerprops={"color": colour}, capprops={"color": colour})
        for box in drawn["boxes"]:
            box.set(facecolor=colour, alpha=0.35, edgecolor=colour)
    for position, values in few:
        axis.plot([position] * len(values), values, linestyle="none", marker=marker,
                  color=colour, markersize=6)


def add_figure_legend(figure, series_list):
    """The series' legend below every panel; returns how many rows it takes."""
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=series_colour(index), marker=MARKERS[index % len(MARKERS)],
                      linewidth=4, markersize=6)
               for index in range(len(series_list))]
    columns = max(1, min(len(series_list), 5))
    figure.legend(handles, series_list, loc="lower center", ncol=columns, fontsize=8,
                  frameon=False)
    return (len(series_list) + columns - 1) // columns


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


def subscriber_table(rows):
    """Per-subscriber p50 by subscriber count: median [lowest-highest] over every subscriber
    of every run."""
    data = box_data(rows, "p50")
    series_list = list(dict.fromkeys(series for series, _, _ in data))
    lines = ["| payload | subscribers | " + " | ".join(series_list) + " |",
             "|---:|---:|" + "---:|" * len(series_list)]
    for size in sorted({size for _, size, _ in data}):
        for count in subscriber_counts(rows):
            cells = []
            for series in series_list:
                values = data.get((series, size, count))
                cells.append(f"{format_figure(statistics.median(values))} "
                             f"[{format_figure(min(values))}-{format_figure(max(values))}]"
                             if values else "")
            lines.append(f"| {format_size(size)} | {count} | " + " | ".join(cells) + " |")
    return lines


def markdown(rows, groups, title):
    footnotes = Footnotes()
    sections = [
        ("One-way latency p50 (RTT/2), µs", "one_way_p50_ns", 1e-3),
        ("One-way latency p99 (RTT/2), µs", "one_way_p99_ns", 1e-3),
        ("One-way latency max (RTT/2), µs", "one_way_max_ns", 1e-3),
        ("Messages per second (per subscriber)", "messages_per_second", 1),
        ("Payload MB/s (per subscriber, 1 MB = 10^6 B)", "payload_bytes_per_second", 1e-6),
        ("Lost messages (all subscribers)", "lost", 1),
        ("Lost, % of messages sent (worst subscriber)", "loss_percent", 1),
    ]
    repetitions = max(int(row.get("repetition") or 1) for row in rows)
    lines = [f"# {title.splitlines()[0]}", "",
             f"Host: {host_facts(rows)}. Date: {sweep_dates(rows) or 'unknown'}. "
             f"Mode: {modes(rows)}, {send_rates(rows)}. Each cell is the median of "
             f"{repetitions} repetition(s); FAIL: no repetition succeeded (reason in the notes).",
             ""]
    for heading, column, scale in sections:
        lines += [f"## {heading}", ""] + table(groups, column, scale, footnotes) + [""]
    if shows_subscribers(rows):
        lines += ["## Each subscriber's one-way p50, µs: median [lowest-highest] over "
                  "subscribers and runs", ""] + subscriber_table(rows) + [""]
    if footnotes.reasons:
        lines += ["## Notes", ""] + [f"- {line}" for line in footnotes.lines()] + [""]
    return "\n".join(lines)


def shows_subscribers(rows):
    counts = subscriber_counts(rows)
    return len(counts) > 1 or any(count > 1 for count in counts)


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
