"""The results of scripts/tools/knee.py: knee.csv and probes.csv, knee.md's table, and
knee.png (the knee against payload size, in msg/s and MB/s; needs matplotlib)."""

import csv
import math

import netprof_figures as figures
import netprof_output as output
from netprof_figures import format_figure, format_size


KNEE_COLUMNS = ["transport", "payload_size", "knee_hz", "knee_payload_bytes_per_second",
                "knee_one_way_p99_ns", "failing_hz", "failing_because", "stopped_by", "converged",
                "probes", "runs_per_rate"]
PROBE_COLUMNS = ["transport", "payload_size", "send_hz", "repetition", "passed", "why_failed",
                 "one_way_p99_ns", "messages_per_second", "lost", "loss_percent"]


def knee_row(setup, size, knee, verdicts, repetitions):
    passed, failed = verdicts.get(knee.passed_hz), verdicts.get(knee.failed_hz)
    return {
        "transport": setup.name, "payload_size": size,
        "knee_hz": knee.passed_hz if knee.passed_hz is not None else "",
        "knee_payload_bytes_per_second": knee.passed_hz * size if passed else "",
        "knee_one_way_p99_ns": passed.p99_ns if passed else "",
        "failing_hz": knee.failed_hz if knee.failed_hz is not None else "",
        "failing_because": failed.why_failed if failed else "",
        "stopped_by": knee.stopped_by, "converged": knee.converged, "probes": len(knee.tried),
        "runs_per_rate": repetitions,
    }


def probe_row(run):
    summary = figures.summary_figures(run.report)
    return {"transport": run.setup.name, "payload_size": run.size, "send_hz": run.send_hz,
            "repetition": run.repetition, "passed": not run.why_failed,
            "why_failed": run.why_failed,
            **{column: summary.get(column, "") for column in PROBE_COLUMNS[6:]}}


def write_csv(path, columns, rows):
    with output.open_for_writing(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(rows)


def knee_cell(row):
    if row["knee_hz"] == "":
        return f"none (fails at {format_figure(row['failing_hz'])})"
    text = format_figure(row["knee_hz"])
    if not row["converged"]:
        return f"≥ {text} (not converged)"
    return "≥ " + text if row["stopped_by"] == "max-hz" else text


def markdown(rows, arguments):
    lines = [f"# Knee: the highest rate with loss ≤ {format_figure(arguments.max_loss)}%, "
             f"one-way p99 ≤ {format_figure(arguments.p99_max)} µs and every subscriber "
             f"receiving at least {format_figure(arguments.min_delivered)}% of it", "",
             f"{arguments.subscribers} subscriber(s), {arguments.duration:g} s per run, "
             f"{arguments.repetitions} run(s) per rate (the p99 at a rate is their median), "
             f"resolution {arguments.resolution:g}%.",
             "", "| transport | payload | knee, msg/s | payload MB/s | p99 at knee, µs | "
             "lowest failing, msg/s | it failed by | probes |",
             "|---|---:|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        lines.append(" | ".join([
            f"| {row['transport']}", format_size(row["payload_size"]), knee_cell(row),
            format_figure(row["knee_payload_bytes_per_second"] / 1e6)
            if row["knee_payload_bytes_per_second"] != "" else "",
            format_figure(row["knee_one_way_p99_ns"] / 1e3)
            if row["knee_one_way_p99_ns"] != "" else "",
            format_figure(row["failing_hz"]) if row["failing_hz"] != "" else "",
            row["failing_because"], f"{row['probes']} |"]))
    unconverged = [row for row in rows if not row["converged"]]
    if unconverged:
        lines += ["", f"**Not converged**: {len(unconverged)} search(es) stopped at --max-probes "
                  f"({arguments.max_probes}) before the knee was within "
                  f"{arguments.resolution:g}%: their knee is only the highest rate that passed."]
    return "\n".join(lines) + "\n"


def plot(rows, path, title):
    plt = figures.pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(10.4, 4.6))
    transports = list(dict.fromkeys(row["transport"] for row in rows))
    for index, transport in enumerate(transports):
        mine = sorted((row for row in rows if row["transport"] == transport),
                      key=lambda row: row["payload_size"])
        sizes = [row["payload_size"] for row in mine]
        rates = [row["knee_hz"] if row["knee_hz"] != "" else math.nan for row in mine]
        if all(math.isnan(rate) for rate in rates):
            continue  # no knee to draw (and a log axis of NaN alone cannot be scaled)
        for axis, scale in zip(axes, (None, 1e-6)):
            values = [rate * size * scale if scale else rate for rate, size in zip(rates, sizes)]
            axis.plot(sizes, values, marker="o", color=f"C{index % 10}", label=transport)
            capped = [(s, v) for s, v, row in zip(sizes, values, mine)
                      if row["stopped_by"] == "max-hz"]
            axis.scatter([s for s, _ in capped], [v for _, v in capped], marker="^", s=80,
                         color=f"C{index % 10}")
    for axis, unit in zip(axes, ("msg/s at the knee", "payload MB/s (10^6 B/s) at the knee")):
        figures.payload_size_axis(axis)
        axis.set_yscale("log")
        axis.set_ylabel(unit)
    if any(row["stopped_by"] == "max-hz" for row in rows):
        axes[0].plot([], [], linestyle="none", marker="^", color="gray",
                     label="≥: --max-hz passed")
    axes[0].legend(fontsize=8)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    output.save_figure(figure, path, dpi=110)
    plt.close(figure)
