#!/usr/bin/env python3
"""Prints netprof-against-baseline rows for the benchmark scripts (transports/*/bench/*.sh,
scripts/bench/*.sh): the medians of repeated, interleaved runs, their ratio, the target and a
verdict, and each run's own ratio. Standard library only.

    ratio_table.py ROW...

Each ROW is "label|unit|direction|target|netprof figures|baseline figures": direction `at_most`
(latency: netprof / baseline must not exceed the target), `at_least` (rates), `between`
(target "LOW-HIGH": a figure that must neither exceed nor undercut the baseline) or `reference`
(no target, no verdict: a figure shown for scale; its target field is left empty); figures are
space-separated, one per run, `n/a` where a run gave none. Exits 0: a missed target is a
verdict, not an error.
"""

import statistics
import sys


def numbers(text):
    values = []
    for word in text.split():
        try:
            values.append(float(word))
        except ValueError:
            values.append(None)
    return values


def median(values):
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def shown(value, unit):
    if value is None:
        return "n/a"
    return f"{value / 1e3:,.2f} us" if unit == "ns" else f"{value / 1e3:,.1f}k {unit}"


def main(rows):
    table = [("", "baseline", "netprof", "ratio", "target", "verdict", "per run")]
    for row in rows:
        label, unit, direction, target_text, ours_text, base_text = row.split("|")
        ours, base = numbers(ours_text), numbers(base_text)
        o, b = median(ours), median(base)
        ratio = o / b if o and b else None
        if direction == "reference":
            low = high = None
        elif direction == "between":
            low, high = (float(bound) for bound in target_text.split("-"))
        else:
            low, high = ((None, float(target_text)) if direction == "at_most"
                         else (float(target_text), None))
        within = ratio is not None and (low is None or ratio >= low) and (
            high is None or ratio <= high)
        verdict = "n/a" if ratio is None else ("PASS" if within else "MISS")
        per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}" for x, y in zip(ours, base))
        if direction == "reference":
            target, verdict = "-", "-"
        else:
            target = (f"{low:.2f}-{high:.2f}x" if low is not None and high is not None
                      else f"<= {high:.2f}x" if high is not None else f">= {low:.2f}x")
        table.append((label, shown(b, unit), shown(o, unit),
                      "n/a" if ratio is None else f"{ratio:.2f}x", target, verdict, per_run))
    widths = [max(len(str(line[c])) for line in table) for c in range(len(table[0]))]
    for line in table:
        print("  " + "  ".join(str(cell).rjust(width) for cell, width in zip(line, widths)))


if __name__ == "__main__":
    main(sys.argv[1:])
