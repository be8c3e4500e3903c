#!/usr/bin/env python3
"""Keeps the runs of a netprof-against-baseline pair that ran on one placement of the vCPUs, for
ratio_table.py. On a VM the host moves the two vCPUs between placements (a cache line between
them one-way in about 60 ns close together, 95-200 ns far apart) at any moment, and every
latency moves with them; a pair split by a move, or pairs from two placements mixed in one
median, compare nothing. Each run has the one-line floor (bench/cache_line_pingpong) measured
just before its baseline and just after its netprof run.

    placement_runs.py [--at-least N] [--keep most|near|far] FLOORS_BEFORE FLOORS_AFTER FIGURES...

Each argument is space-separated, one value per run, `n/a` where a run gave none. A run whose
two floors differ by more than 1.5x ran while the vCPUs moved; the others are grouped by their
floor (a group spans at most 1.5x), and one group is kept: with --keep most (the default) the
largest (the closer placement on a tie), with near the closest and with far the farthest of
those at least N runs held (--at-least), so that a run of many rounds can be judged on the
placement a user asks for even when the host kept the vCPUs elsewhere most of the time. Prints
each FIGURES list with every other run as `n/a`, one per line, then a line that says which
placement was kept and what was left out. With --at-least N, a placement that fewer than N runs
held keeps nothing (every figure `n/a`: no verdict rests on one or two runs), and the line says
so. Standard library only; exits 0, or 2 on a malformed command line.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratio_table import numbers  # noqa: E402  (the figures' format is ratio_table's)

SAME_PLACEMENT = 1.5
# --keep's choices, and how the line that names the kept runs calls each.
PLACEMENT_NAMES = {"most": "placement", "near": "nearest placement", "far": "farthest placement"}


def placement_groups(floors):
    """Run indices grouped by floor, closest placement first; each group spans at most 1.5x.
    transports/shm/bench/bench_shm.sh groups its rounds with it too."""
    groups = []
    for index in sorted((i for i, floor in enumerate(floors) if floor), key=lambda i: floors[i]):
        if groups and floors[index] <= SAME_PLACEMENT * floors[groups[-1][0]]:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def kept_runs(before, after, keep="most", at_least=1):
    """(indices kept, indices during which the vCPUs moved, indices on other placements,
    indices without both floors); `keep` is one of PLACEMENT_NAMES. near and far choose among
    the placements at least `at_least` runs held, when there is one."""
    moved, unfloored, steady = [], [], []
    for i, (b, a) in enumerate(zip(before, after)):
        if b and a and max(a, b) <= SAME_PLACEMENT * min(a, b):
            steady.append(b)
        else:
            steady.append(None)
            (moved if b and a else unfloored).append(i)
    groups = placement_groups(steady)
    if not groups:
        return [], moved, [], unfloored
    enough = [group for group in groups if len(group) >= at_least] or groups
    if keep == "near":
        kept = enough[0]
    elif keep == "far":
        kept = enough[-1]
    else:
        kept = max(groups, key=len)  # max() keeps the first (closest) of equal sizes
    others = sorted(i for group in groups if group is not kept for i in group)
    return sorted(kept), moved, others, unfloored


def describe(kept, moved, others, unfloored, floors, keep="most"):
    runs = lambda indices: " ".join(str(i + 1) for i in indices)
    if not kept:
        text = "no run held one placement"
    else:
        held = [floors[i] for i in kept]
        # near or far fell back from a placement too few runs held (kept_runs' at_least)
        beyond = [i for i in others if keep == "far" and floors[i] > max(held)
                  or keep == "near" and floors[i] < min(held)]
        text = (f"{'placement' if beyond else PLACEMENT_NAMES[keep]} with floors"
                f" {min(held):g}-{max(held):g} ns one-way: runs {runs(kept)}"
                f" ({len(kept)} of {len(floors)})")
        if beyond:
            text += (f"; runs {runs(beyond)} held a {'farther' if keep == 'far' else 'nearer'}"
                     " one, too few to judge")
    if moved:
        text += f"; the vCPUs moved during runs {runs(moved)}"
    if others:
        text += f"; left out, on another placement: runs {runs(others)}"
    if unfloored:
        text += f"; no floor for runs {runs(unfloored)}"
    return text


def main(arguments):
    at_least, keep = 1, "most"
    while arguments[:1] in (["--at-least"], ["--keep"]) and len(arguments) > 1:
        if arguments[0] == "--at-least" and arguments[1].isdigit():
            at_least = int(arguments[1])
        elif arguments[0] == "--keep" and arguments[1] in PLACEMENT_NAMES:
            keep = arguments[1]
        else:
            break
        arguments = arguments[2:]
    if len(arguments) < 3 or arguments[0].startswith("--"):
        print(__doc__, file=sys.stderr)
        return 2
    before, after = numbers(arguments[0]), numbers(arguments[1])
    kept, moved, others, unfloored = kept_runs(before, after, keep, at_least)
    judged = len(kept) >= at_least
    for figures in arguments[2:]:
        words = figures.split()
        print(" ".join(word if judged and i in kept else "n/a" for i, word in enumerate(words)))
    text = describe(kept, moved, others, unfloored, before, keep)
    print(text if judged else f"{text}: fewer than {at_least} runs, not judged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
