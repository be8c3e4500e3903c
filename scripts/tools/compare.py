#!/usr/bin/python3
"""Compares two sets of netprof runs, a baseline and a contender, figure by figure, and says
whether each change is beyond noise: a gate for CI.

    scripts/tools/compare.py --baseline old/*.pub.json --contender new/*.pub.json
    scripts/tools/compare.py --baseline before/sweep.csv --contender after/sweep.csv --json -

Inputs are publishers' JSON reports (`netprof --json`; subscribers' reports are skipped) or
sweep CSVs (scripts/tools/sweep.py; failed rows are skipped). Runs are grouped by transport,
mode, payload size and subscriber count; each group's repetitions are one sample. When each
side holds exactly one group and they differ (say udp against shm), those two are compared.

For every figure (one-way latency p50, p99 and mean, messages/s, payload MB/s, loss %) it gives
both medians, the change in percent and a one-sided Mann-Whitney U p-value in the direction of
a regression (the contender's latency or loss higher, its rates lower): rank-based, so one
outlier run does not decide it, and no assumption that the figures are normally distributed.
A gate asks one question, "is it worse?", so the test is one-sided: with n runs per side it can
reach p = 1 / C(2n, n), where a two-sided test reaches only twice that (3 against 3: 0.05
one-sided, 0.1 two-sided). The verdict is "worse" when that p < --alpha and the change exceeds
--threshold; "better" when the one-sided test the other way does the same; else "noise".
--min-runs defaults to the fewest runs per side with which the test can reach p < --alpha at
all: 4 at alpha 0.05 (1 / C(8, 4) = 0.014), 5 at alpha 0.01. A figure with fewer runs (or
unequal sides that cannot reach alpha) is "too few runs": it was not judged, and the gate fails.

Exit status: 0 every figure judged, no significant regression; 1 at least one figure is
significantly worse beyond the threshold; 2 bad input (unreadable or foreign files, nothing to
compare, scipy missing); 3 no regression found, but at least one figure had too few runs to be
judged (run more repetitions: the gate cannot pass what it could not test).
Needs scipy (Debian: python3-scipy).
"""

import argparse
import collections
import dataclasses
import importlib.util
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_figures as figures  # noqa: E402
import netprof_input as loader  # noqa: E402
import netprof_output as output  # noqa: E402
from netprof_exit import exit_status  # noqa: E402
from netprof_figures import COMPARED_FIGURES, format_figure, format_size  # noqa: E402

Key = collections.namedtuple("Key", "transport mode payload_size subscribers")


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The statistics (no files, so they can be tested alone)


@dataclasses.dataclass
class Verdict:
    baseline_median: float
    contender_median: float
    change_percent: float  # inf when the baseline is 0 and the contender is not
    p_value: float         # one-sided, toward a regression; None with too few runs to test
    p_better: float        # one-sided, toward an improvement; None likewise
    verdict: str           # "better", "worse", "noise" or "too few runs"


def relative_change(baseline, contender):
    if baseline == 0:
        return 0.0 if contender == 0 else math.copysign(math.inf, contender)
    return (contender - baseline) / abs(baseline) * 100


def smallest_p_value(n1, n2):
    """The smallest one-sided p an exact Mann-Whitney U test can give for these sample sizes
    (every contender run beyond every baseline run): 1 / C(n1 + n2, n1)."""
    return min(1.0, 1 / math.comb(n1 + n2, n1))


def runs_needed(alpha):
    """The fewest runs per side (as many on each) with which the one-sided test can reach
    p < alpha."""
    runs = 2
    while smallest_p_value(runs, runs) >= alpha:
        runs += 1
    return runs


def mann_whitney_p(baseline, contender, contender_higher):
    """One-sided p that the contender's figures are stochastically higher (or lower) than the
    baseline's."""
    from scipy.stats import mannwhitneyu
    if len(set(baseline) | set(contender)) == 1:
        return 1.0  # all equal: nothing to rank
    alternative = "greater" if contender_higher else "less"
    return float(mannwhitneyu(contender, baseline, alternative=alternative).pvalue)


def judge(baseline, contender, higher_is_better, alpha, threshold_percent, min_runs):
    b, c = statistics.median(baseline), statistics.median(contender)
    change = relative_change(b, c)
    n1, n2 = len(baseline), len(contender)
    if min(n1, n2) < min_runs or smallest_p_value(n1, n2) >= alpha:
        return Verdict(b, c, change, None, None, "too few runs")
    p_worse = mann_whitney_p(baseline, contender, contender_higher=not higher_is_better)
    p_better = mann_whitney_p(baseline, contender, contender_higher=higher_is_better)
    worse_change = c < b if higher_is_better else c > b
    beyond = abs(change) > threshold_percent
    if p_worse < alpha and beyond and worse_change:
        return Verdict(b, c, change, p_worse, p_better, "worse")
    if p_better < alpha and beyond and not worse_change and c != b:
        return Verdict(b, c, change, p_worse, p_better, "better")
    return Verdict(b, c, change, p_worse, p_better, "noise")


# ---------------------------------------------------------------------------------------------
# Reading runs


def read_runs(paths, side):
    """{Key: [{figure name: value}]} from JSON reports and sweep CSVs."""
    runs = collections.defaultdict(list)
    for path in paths:
        for key, values in read_file(path, side):
            runs[key].append(values)
    if not runs:
        raise InputError(f"--{side}: no publisher report or successful sweep row in "
                         + ", ".join(paths))
    return runs


def read_file(path, side):
    try:
        text = loader.read_text(path)
        if text.lstrip().startswith("{"):
            return read_report(path, text)
        return read_csv_rows(path, text)
    except loader.InputError as error:
        raise InputError(f"--{side}: {error}") from None


def read_report(path, text):
    report = loader.parse_json(text, path)
    if report.get("schema_version") != 1:
        raise loader.InputError(f"{path} is not a netprof report (schema_version 1)")
    if "publisher" not in report:
        print(f"compare: skipping {path}: a subscriber's report (the publisher's has every "
              "figure)", file=sys.stderr)
        return []
    result = report.get("result", {})
    if isinstance(result, dict) and result.get("interrupted"):
        print(f"compare: skipping {path}: the run was interrupted", file=sys.stderr)
        return []
    loader.check_publisher_report(report, path)
    settings = report.get("settings", {})
    key = Key(settings.get("transport", "?"), settings.get("mode", "?"),
              int(settings.get("payload_size", 0)), int(settings.get("subscribers_expected", 1)))
    values = figures.report_figures(report)
    for name, value in values.items():
        loader.optional_number(value, f"{path}: {name}")
    return [(key, values)]


def read_csv_rows(path, text):
    rows = loader.read_csv(text, path)
    needed = {"transport", "mode", "payload_size", "subscribers", "status"}
    if not rows or not needed <= set(rows[0]):
        raise loader.InputError(f"{path} is neither a netprof JSON report nor a sweep CSV")
    runs = []
    for line, row in enumerate(rows, 2):
        if row["status"] != "ok":
            continue
        where = f"{path} line {line}"
        key = Key(row["transport"], row["mode"], loader.whole(row["payload_size"],
                                                             f"{where}: payload_size"),
                  loader.whole(row["subscribers"], f"{where}: subscribers"))
        values = {figure.name: loader.optional_number(row.get(figure.name),
                                                      f"{where}: {figure.name}")
                  for figure in COMPARED_FIGURES}
        runs.append((key, values))
    return runs


def pair_keys(baseline, contender):
    """(baseline key, contender key) pairs to compare, and the keys only one side has."""
    common = [key for key in baseline if key in contender]
    if not common and len(baseline) == 1 and len(contender) == 1:
        return [(next(iter(baseline)), next(iter(contender)))], [], []
    only_baseline = [key for key in baseline if key not in contender]
    only_contender = [key for key in contender if key not in baseline]
    return [(key, key) for key in common], only_baseline, only_contender


def key_label(key):
    subscribers = f"{key.subscribers} subscriber{'s' if key.subscribers != 1 else ''}"
    return f"{key.transport} {key.mode} {format_size(key.payload_size)}, {subscribers}"


def pair_label(pair):
    base, contender = pair
    return key_label(base) if base == contender else f"{key_label(base)} vs {key_label(contender)}"


# ---------------------------------------------------------------------------------------------
# Comparing and printing


def compare(baseline, contender, arguments):
    """Every figure of every pair: a list of dicts, as --json writes them."""
    pairs, only_baseline, only_contender = pair_keys(baseline, contender)
    if not pairs:
        raise InputError("nothing to compare: no transport, mode, size and subscriber count is "
                         "in both sets")
    for side, keys in (("baseline", only_baseline), ("contender", only_contender)):
        for key in keys:
            print(f"compare: only in the {side}: {key_label(key)}", file=sys.stderr)
    results = []
    for pair in pairs:
        for figure in COMPARED_FIGURES:
            b = [run[figure.name] for run in baseline[pair[0]] if run[figure.name] is not None]
            c = [run[figure.name] for run in contender[pair[1]] if run[figure.name] is not None]
            if not b or not c:
                continue
            verdict = judge(b, c, figure.higher_is_better, arguments.alpha, arguments.threshold,
                            arguments.min_runs)
            results.append({"runs": pair_label(pair), "figure": figure.name,
                            "label": figure.label, "unit": figure.unit, "scale": figure.scale,
                            "baseline": b, "contender": c, **dataclasses.asdict(verdict)})
    return results


def format_change(change):
    if math.isinf(change):
        return "new" if change > 0 else "-inf"
    return f"{change:+.1f}%"


def text_table(results, arguments):
    header = ["figure", "baseline", "contender", "change", "p", "runs", "verdict"]
    lines = []
    for runs in dict.fromkeys(result["runs"] for result in results):
        rows = [header]
        for r in (result for result in results if result["runs"] == runs):
            rows.append([f"{r['label']}, {r['unit']}",
                         format_figure(r["baseline_median"] * r["scale"]),
                         format_figure(r["contender_median"] * r["scale"]),
                         format_change(r["change_percent"]),
                         "-" if r["p_value"] is None else f"{r['p_value']:.3g}",
                         f"{len(r['baseline'])}/{len(r['contender'])}", r["verdict"]])
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        lines.append(runs)
        for row in rows:
            cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width
                                                 in zip(row[1:-1], widths[1:-1])] + [row[-1]]
            lines.append("  " + "  ".join(cells))
        lines.append("")
    lines.append(f"medians; change: contender vs baseline; p: one-sided Mann-Whitney U toward a "
                 f"regression (the verdict better uses the other side); "
                 f"verdict beyond noise when p < {arguments.alpha:g} and |change| > "
                 f"{arguments.threshold:g}%; runs: baseline/contender")
    return "\n".join(lines)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Compare two sets of netprof runs (JSON reports or sweep CSVs) figure by "
        "figure with a Mann-Whitney U test; exit 1 on a significant regression.",
        epilog="The test is one-sided, in the direction of a regression, so that few runs can "
        "reach --alpha: --min-runs defaults to the fewest runs per side that can (4 at alpha "
        "0.05, 5 at 0.01). Exit status: 0 every figure judged and none significantly worse, 1 a "
        "significant regression, 2 bad input, 3 no regression found but some figure had too few "
        "runs to be judged (the gate does not pass what it could not test).")
    parser.add_argument("--baseline", nargs="+", required=True, metavar="FILE",
                        help="JSON reports or sweep CSVs of the reference runs")
    parser.add_argument("--contender", nargs="+", required=True, metavar="FILE",
                        help="JSON reports or sweep CSVs of the runs to judge")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="significance level (default: %(default)g)")
    parser.add_argument("--threshold", type=float, default=5.0, metavar="PERCENT",
                        help="smallest change of a median that counts (default: %(default)g)")
    parser.add_argument("--min-runs", type=int, default=None,
                        help="fewest runs per side to test a figure (default: the fewest with "
                        "which the one-sided test can reach --alpha; 4 at alpha 0.05)")
    parser.add_argument("--json", metavar="FILE", help="also write the comparison as JSON; "
                        "- for stdout (instead of the table)")
    arguments = parser.parse_args(argv)
    if not 0 < arguments.alpha < 1:
        raise InputError("--alpha must be between 0 and 1")
    if not (arguments.threshold >= 0 and math.isfinite(arguments.threshold)):
        raise InputError("--threshold must be a percentage of at least 0")
    if arguments.min_runs is None:
        arguments.min_runs = runs_needed(arguments.alpha)
    if arguments.min_runs < 2:
        raise InputError("--min-runs must be at least 2")
    return arguments


def write_json(results, arguments, regression):
    untested = sum(1 for result in results if result["verdict"] == "too few runs")
    document = {"alpha": arguments.alpha, "threshold_percent": arguments.threshold,
                "test": "Mann-Whitney U, one-sided toward a regression",
                "min_runs": arguments.min_runs, "regression": regression,
                "too_few_runs": untested,
                "figures": [{**result, "change_percent": None
                             if math.isinf(result["change_percent"]) else result["change_percent"]}
                            for result in results]}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        if arguments.json == "-":
            sys.stdout.write(text)
        else:
            output.write_text(arguments.json, text)
    except OSError as error:
        raise OSError(f"cannot write {arguments.json}: {error.strerror or error}") from error


def gate(argv):
    """The comparison printed (and written as JSON when asked), and the exit status it gives."""
    arguments = parse_arguments(argv)
    if importlib.util.find_spec("scipy") is None:
        raise InputError("scipy is missing; on Debian: apt-get install python3-scipy (and "
                         "run this script with /usr/bin/python3)")
    results = compare(read_runs(arguments.baseline, "baseline"),
                      read_runs(arguments.contender, "contender"), arguments)
    regression = any(result["verdict"] == "worse" for result in results)
    if arguments.json != "-":
        print(text_table(results, arguments))
    if arguments.json:
        write_json(results, arguments, regression)
    untested = sum(1 for result in results if result["verdict"] == "too few runs")
    if untested:
        print(f"compare: {untested} of {len(results)} figures had too few runs to judge at "
              f"alpha {arguments.alpha:g} (at least {arguments.min_runs} per side): not judged, "
              "so the gate fails", file=sys.stderr)
    if regression:
        worse = [f"{r['runs']}: {r['label']}" for r in results if r["verdict"] == "worse"]
        print("compare: significant regression: " + "; ".join(worse), file=sys.stderr)
        return 1
    return 3 if untested else 0


def main(argv):
    return exit_status("compare", lambda: gate(argv), {InputError: 2, OSError: 2})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
