"""The PNG plots of scripts/tools/plot.py: one-way latency and throughput against payload
size (one line per series, each run a faint dot, a red ring where a run lost messages), and
each subscriber's own latency as boxes per subscriber count."""

import dataclasses
import math

import netprof_output as output
from netprof_figures import format_size, payload_size_axis, pyplot
from netprof_sweep_rows import box_data, lossy_sizes, series_line, series_order, subscriber_counts


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
DOT_STYLE = {"alpha": 0.25, "s": 10}
LOSS_RING_STYLE = {"s": 90, "facecolors": "none", "edgecolors": "red", "linewidths": 1.2}


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


def box_sizes(rows):
    sizes = sorted({int(row["payload_size"]) for row in rows if row["status"] == "ok"})
    if len(sizes) <= MAX_BOX_SIZES:
        return sizes
    step = (len(sizes) - 1) / (MAX_BOX_SIZES - 1)
    return [sizes[round(index * step)] for index in range(MAX_BOX_SIZES)]


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
