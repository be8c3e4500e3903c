"""Reading the files the analysis tools are given (netprof's JSON reports, sweep CSVs), which
may come from another host or another user: every malformation is an InputError whose text is
one line naming the file and what is wrong (the tools exit 2 on it), never a traceback.
Refused: unreadable, larger than a report can be, not UTF-8, not JSON or nested deeper than a
report is, NaN or infinity (JSON has neither: Python's parser accepts them), a CSV field over
the csv module's limit or a NUL byte, a figure that is not a finite number, a size that is not
a whole number netprof could send. Standard library only.
"""

import csv
import json
import math

MAX_INPUT_BYTES = 64 * 1024 * 1024
# A netprof report is about 8 levels deep; Python's parser gives up (RecursionError) near 1000.
MAX_DEPTH = 64
MAX_WHOLE = 2 ** 64 - 1
MAX_NUMBER_TEXT = 64  # characters: no figure netprof writes is longer


class InputError(Exception):
    pass


def read_text(path, limit=MAX_INPUT_BYTES):
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit} bytes, not a netprof file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def depth(value):
    """How deeply `value` nests, without recursion (a hostile document may nest deeper than
    Python's stack)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        pending.extend((child, level + 1) for child in item)
    return deepest


def parse_json(text, path):
    """The JSON object in `text`; InputError naming `path` for anything else."""
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply (a netprof report nests at most "
                         f"{MAX_DEPTH} levels)") from None
    except ValueError as error:
        raise InputError(f"{path}: not JSON: {error}") from None
    if depth(document) > MAX_DEPTH:
        raise InputError(f"{path}: JSON nested too deeply (a netprof report nests at most "
                         f"{MAX_DEPTH} levels)")
    if not isinstance(document, dict):
        raise InputError(f"{path}: not a JSON object")
    return document


def read_csv(text, path):
    """The rows of a CSV as dicts; InputError naming the file and line of a broken one."""
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise InputError(f"{path} line {line}: a NUL byte, not a CSV")
    reader = csv.DictReader(text.splitlines())
    rows = []
    try:
        for row in reader:
            if None in row or None in row.values():
                raise InputError(f"{path} line {reader.line_num}: not as many fields as the "
                                 f"header names ({len(reader.fieldnames)})")
            rows.append(row)
    except csv.Error as error:
        raise InputError(f"{path} line {reader.line_num}: not a readable CSV: {error}") from None
    return rows


def number(value, where):
    """A finite number from a JSON value or a CSV cell (bool is no number)."""
    if isinstance(value, bool):
        raise InputError(f"{where}: {value!r} is not a number")
    if isinstance(value, str):
        if len(value) > MAX_NUMBER_TEXT:
            raise InputError(f"{where}: a {len(value)}-character value is not a figure")
        try:
            value = float(value)
        except ValueError:
            raise InputError(f"{where}: {value!r} is not a number") from None
    if not isinstance(value, (int, float)):
        raise InputError(f"{where}: {shown(value)} is not a number")
    try:
        if not math.isfinite(value):
            raise InputError(f"{where}: {value} is not a finite number")
    except OverflowError:
        raise InputError(f"{where}: a number too large for any figure") from None
    return value


def whole(value, where, minimum=0, maximum=MAX_WHOLE):
    """A whole number from minimum to maximum (a size, a count)."""
    if isinstance(value, str) and value.strip().isdigit() and len(value) <= MAX_NUMBER_TEXT:
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {shown(value)} is not a whole number")
    if not minimum <= value <= maximum:
        raise InputError(f"{where}: {shown(value)} is not from {minimum} to {maximum}")
    return value


def optional_number(value, where):
    return None if value is None or value == "" else number(value, where)


def shown(value):
    """A value for a message: short, printable."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def table(value, where):
    if not isinstance(value, dict):
        raise InputError(f"{where}: {shown(value)} where an object belongs")
    return value


def check_publisher_report(report, path):
    """The parts of a publisher's report the tools read (netprof_figures.summary_figures and
    report_figures) have the shape netprof writes; InputError naming the field otherwise."""
    publisher = table(report.get("publisher"), f"{path}: publisher")
    latency = table(publisher.get("latency"), f"{path}: publisher.latency")
    for name in ("one_way_ns", "rtt_ns"):
        figures = table(latency.get(name), f"{path}: publisher.latency.{name}")
        for key in ("p50", "p90", "p99", "max"):
            number(figures.get(key), f"{path}: publisher.latency.{name}.{key}")
        optional_number(figures.get("mean"), f"{path}: publisher.latency.{name}.mean")
    subscribers = report.get("subscribers", [])
    if not isinstance(subscribers, list):
        raise InputError(f"{path}: subscribers: {shown(subscribers)} where a list belongs")
    for index, entry in enumerate(subscribers):
        where = f"{path}: subscribers[{index}]"
        table(entry, where)
        if not entry.get("counters_received"):
            continue
        throughput = table(entry.get("throughput"), f"{where}.throughput")
        for key in ("messages_per_second", "payload_bytes_per_second", "wire_bytes_per_second"):
            number(throughput.get(key), f"{where}.throughput.{key}")
        number(entry.get("lost"), f"{where}.lost")
        number(entry.get("loss_percent"), f"{where}.loss_percent")
    settings = table(report.get("settings", {}), f"{path}: settings")
    whole(settings.get("payload_size", 0), f"{path}: settings.payload_size")
    whole(settings.get("subscribers_expected", 1), f"{path}: settings.subscribers_expected")
    for key in ("transport", "mode"):
        if not isinstance(settings.get(key, "?"), str):
            raise InputError(f"{path}: settings.{key}: {shown(settings.get(key))} is not a name")
    return report
