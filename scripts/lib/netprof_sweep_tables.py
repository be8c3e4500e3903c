"""The Markdown tables of scripts/tools/plot.py: the same figures as the plots, the median
of each point's successful runs, failed points marked with their reasons in the notes."""

import statistics

from netprof_figures import format_figure, format_size
from netprof_sweep_rows import (Point, box_data, host_facts, modes, ok_values, send_rates,
                                series_order, shows_subscribers, subscriber_counts, sweep_dates)

COUNT_COLUMNS = {"lost"}  # whole numbers in the tables, not three significant digits


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
