#!/usr/bin/python3
"""Runs `netprof --local-pair --interval 0.5` with stderr on a pseudo-terminal, so each role's
live status line runs on its own thread (src/core/live_status.*: it starts only when stderr is a
terminal, which it never is under the e2e harness), beside the publisher's interval reporter
(src/core/interval_reporter.*). Fails unless the run succeeds, the status line was drawn and
interval lines were printed. scripts/setup/sanitize.sh runs it against the ThreadSanitizer
build, where any report makes netprof exit non-zero; it works against any build.

Usage: status_line_on_terminal.py NETPROF [TRANSPORT OPTIONS...]
Takes about 3 s; gives up (and kills netprof by its PID) after 60 s.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "lib"))
from netprof_processes import run_on_terminal  # noqa: E402

DEADLINE_S = 60.0


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    netprof, transport = sys.argv[1], sys.argv[2:]
    # Long enough for two status lines (one a second); StatusLine wants at least 2 s. With
    # --interval, each role's interval reporter thread runs beside the status line's.
    command = [netprof, "--local-pair", "-t", "2", "--warmup-time", "0.5",
               "--interval", "0.5"] + transport
    outcome = run_on_terminal(command, DEADLINE_S)
    if outcome.returncode is None:
        print(f"FAIL: {' '.join(command)} still running after {DEADLINE_S:.0f} s; killed",
              file=sys.stderr)
        return 1
    drawn = "measuring" in outcome.terminal
    interval_lines = sum(line.startswith("[") for line in outcome.stdout.splitlines())
    if outcome.returncode != 0 or not drawn or interval_lines < 3:
        print(f"FAIL: {' '.join(command)} exited {outcome.returncode}; "
              f"status line drawn: {drawn}; interval lines: {interval_lines}", file=sys.stderr)
        print("--- its terminal (stderr):\n" + outcome.terminal, file=sys.stderr)
        print("--- its stdout:\n" + outcome.stdout, file=sys.stderr)
        return 1
    print(f"status line on a terminal: {' '.join(command)} exited 0, "
          f"{outcome.terminal.count('measuring')} status lines drawn, "
          f"{interval_lines} interval lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
