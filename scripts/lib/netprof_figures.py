"""What the tools share about netprof's figures: reading sizes and rates off a command line,
the headline figures of a publisher's report (or of a sweep CSV row), which way each figure is
better, and how to print and plot them. Shared by scripts/tools (sweep, plot, knee, compare)
and their tests. Standard library only; matplotlib is imported only by the plotting helper.
"""

import dataclasses
import math

SIZE_SUFFIXES = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


class ArgumentError(Exception):
    """A command-line value the user has to fix (exit status 2)."""


# ---------------------------------------------------------------------------------------------
# Command-line values


def parse_sizes(text, option="--sizes"):
    """Payload sizes from "64,4K,1M" (K and M are KiB and MiB)."""
    sizes = [parse_size(item.strip(), option) for item in text.split(",") if item.strip()]
    if not sizes:
        raise ArgumentError(f"{option} needs at least one size")
    return sizes


def parse_size(item, option="--sizes"):
    multiplier = SIZE_SUFFIXES.get(item[-1:].lower(), 1)
    digits = item[:-1] if multiplier > 1 else item
    if item.lower().endswith(("kib", "mib", "gib")):
        multiplier, digits = SIZE_SUFFIXES[item[-3].lower()], item[:-3]
    try:
        size = int(digits) * multiplier
    except ValueError:
        raise ArgumentError(f"{option}: '{item}' is not a size in bytes (e.g. 64, 4K, 1M)")
    if size < 1:
        raise ArgumentError(f"{option}: {item} is not a payload size (at least 1 byte)")
    return size


def parse_number(text, option, minimum):
    try:
        value = float(text)
    except ValueError:
        raise ArgumentError(f"{option}: '{text}' is not a number")
    if not math.isfinite(value) or value < minimum:
        raise ArgumentError(f"{option} must be a number of at least {minimum}")
    return value


def parse_counts(text, option):
    """Whole numbers of at least 1 from "1,4,8", in the order given, without repeats."""
    counts = []
    for item in (part.strip() for part in str(text).split(",")):
        if not item:
            continue
        if not item.isdigit() or int(item) < 1:
            raise ArgumentError(f"{option}: '{item}' is not a whole number of at least 1")
        if int(item) not in counts:
            counts.append(int(item))
    if not counts:
        raise ArgumentError(f"{option} needs at least one number")
    return counts


# ---------------------------------------------------------------------------------------------
# Figures of a run


def summary_figures(report):
    """The headline figures of a publisher's report, or nothing if there is none. Throughput
    is the mean over subscribers, `lost` the total, `loss_percent` the worst subscriber's."""
    if not report or "publisher" not in report:
        return {}
    latency = report["publisher"]["latency"]
    one_way, rtt = latency["one_way_ns"], latency["rtt_ns"]
    counted = [s for s in report.get("subscribers", []) if s.get("counters_received")]
    return {
        "one_way_p50_ns": one_way["p50"], "one_way_p90_ns": one_way["p90"],
        "one_way_p99_ns": one_way["p99"], "one_way_max_ns": one_way["max"],
        "rtt_p50_ns": rtt["p50"], "rtt_p99_ns": rtt["p99"], "rtt_max_ns": rtt["max"],
        "messages_per_second": mean(s["throughput"]["messages_per_second"] for s in counted),
        "payload_bytes_per_second": mean(
            s["throughput"]["payload_bytes_per_second"] for s in counted),
        "wire_bytes_per_second": mean(s["throughput"]["wire_bytes_per_second"] for s in counted),
        "lost": sum(s["lost"] for s in counted),
        "loss_percent": max((s["loss_percent"] for s in counted), default=0),
    }


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0


@dataclasses.dataclass(frozen=True)
class Figure:
    """One figure two sets of runs are compared on."""
    name: str                # the sweep CSV's column
    label: str
    unit: str
    scale: float             # multiplies the stored value into `unit`
    higher_is_better: bool
    report_path: tuple = ()  # where a publisher's report has it, when not a summary figure


COMPARED_FIGURES = [
    Figure("one_way_p50_ns", "latency p50", "µs", 1e-3, False),
    Figure("one_way_p99_ns", "latency p99", "µs", 1e-3, False),
    Figure("publisher.latency.one_way_ns.mean", "latency mean", "µs", 1e-3, False,
           ("publisher", "latency", "one_way_ns", "mean")),
    Figure("messages_per_second", "received", "msg/s", 1, True),
    Figure("payload_bytes_per_second", "payload", "MB/s", 1e-6, True),
    Figure("loss_percent", "loss", "%", 1, False),
]


def report_figures(report):
    """{figure name: value} for COMPARED_FIGURES, from a publisher's report."""
    figures = summary_figures(report)
    values = {}
    for figure in COMPARED_FIGURES:
        if figure.report_path:
            value = report
            for key in figure.report_path:
                value = value.get(key, {}) if isinstance(value, dict) else {}
            values[figure.name] = value if isinstance(value, (int, float)) else None
        else:
            values[figure.name] = figures.get(figure.name)
    return values


def row_figures(row):
    """{figure name: value} for COMPARED_FIGURES, from a sweep CSV row (None where empty)."""
    return {figure.name: float(row[figure.name]) if row.get(figure.name, "") != "" else None
            for figure in COMPARED_FIGURES}


# ---------------------------------------------------------------------------------------------
# Printing and plotting


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


def payload_size_axis(axis):
    """A log2 x axis labelled 64 B, 256 B, 1 KiB, ... with a grid, as every plot has."""
    from matplotlib.ticker import FuncFormatter, LogLocator
    axis.set_xscale("log", base=2)
    axis.xaxis.set_major_locator(LogLocator(base=4, numticks=30))
    axis.set_xlabel("payload size")
    axis.xaxis.set_major_formatter(FuncFormatter(lambda x, _: format_size(int(x))))
    axis.tick_params(axis="x", labelrotation=45, labelsize=8)
    axis.grid(True, which="major", alpha=0.4)
    axis.grid(True, which="minor", alpha=0.12)


def pyplot():
    """matplotlib's pyplot drawing into files only (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
