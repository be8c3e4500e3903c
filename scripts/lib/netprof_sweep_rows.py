"""Reading sweep CSVs (scripts/tools/sweep.py) for scripts/tools/plot.py: the rows, checked
where the file and line are known, grouped into series and points, and the facts every title
and table states (host, dates, rates, modes)."""

import collections
import math
import statistics

import netprof_input as loader
from netprof_figures import format_figure

Point = collections.namedtuple("Point", "series size")


class InputError(Exception):
    pass


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


def box_data(rows, percentile):
    """{(series, size, count): [per-subscriber values in µs]} over every successful run."""
    name = series_namer(rows, columns=("mode", "host.hostname"))
    data = collections.defaultdict(list)
    for row in rows:
        if row["status"] == "ok":
            key = (name(row), int(row["payload_size"]), int(row["subscribers"]))
            data[key] += [value * 1e-3 for value in per_subscriber_latency(row, percentile)]
    return data


def shows_subscribers(rows):
    counts = subscriber_counts(rows)
    return len(counts) > 1 or any(count > 1 for count in counts)
