#!/usr/bin/python3
"""Runs `netprof --local-pair` with stderr on a pseudo-terminal, so each role's live status
line runs on its own thread (src/core/live_status.*: it starts only when stderr is a terminal,
which it never is under the e2e harness). Fails unless the run succeeds and the status line was
drawn. scripts/setup/sanitize.sh runs it against the ThreadSanitizer build, where any report makes
netprof exit non-zero; it works against any build.

Usage: status_line_on_terminal.py NETPROF [TRANSPORT OPTIONS...]
Takes about 3 s; gives up (and kills netprof by its PID) after 60 s.
"""

import os
import pty
import select
import subprocess
import sys
import time

DEADLINE_S = 60.0


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    netprof, transport = sys.argv[1], sys.argv[2:]
    # Long enough for two status lines (one a second); StatusLine wants at least 2 s.
    command = [netprof, "--local-pair", "-t", "2", "--warmup-time", "0.5"] + transport
    controller, terminal = pty.openpty()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=terminal)
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + DEADLINE_S
    try:
        while True:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    chunk = b""
                if not chunk and process.poll() is not None:
                    break
                seen += chunk
            elif process.poll() is not None:
                break
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                print(f"FAIL: {' '.join(command)} still running after {DEADLINE_S:.0f} s; killed",
                      file=sys.stderr)
                return 1
        report = process.stdout.read().decode(errors="replace")
        status = process.wait()
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
            process.wait()

    terminal_text = seen.decode(errors="replace")
    if status != 0 or b"measuring" not in seen:
        print(f"FAIL: {' '.join(command)} exited {status}; "
              f"status line drawn: {b'measuring' in seen}", file=sys.stderr)
        print("--- its terminal (stderr):\n" + terminal_text, file=sys.stderr)
        print("--- its stdout:\n" + report, file=sys.stderr)
        return 1
    print(f"status line on a terminal: {' '.join(command)} exited 0, "
          f"{terminal_text.count('measuring')} status lines drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
