"""Reading a running netprof's live status line, so that a test acts when the measured phase has
begun rather than after a guessed sleep: under a sanitizer on a loaded machine, a process can
still be in its handshake seconds after it started."""

import os
import pty
import re
import select
import time

DEFAULT_WAIT_S = 30


class Watched:
    """A process whose stderr is a pseudo-terminal: its status line can be read while it runs."""

    def __init__(self, process, json_path, terminal):
        self.process = process
        self.json_path = json_path
        self.terminal = terminal
        self.seen = ""


class LiveStatus:
    """Mixed into NetprofTestCase; uses its start(), finish() and the unittest asserts."""

    def start_watched(self, *args, json_name=None):
        """Starts netprof with stderr on a pseudo-terminal (so it shows its live status line)."""
        primary, secondary = pty.openpty()
        process, path = self.start(*args, json_name=json_name, stderr=secondary)
        os.close(secondary)
        self.addCleanup(os.close, primary)
        return Watched(process, path, primary)

    def wait_for_measured_data(self, watched, deadline_s=DEFAULT_WAIT_S, publisher=None):
        """Polls the subscriber's status line until it has received measured messages; if it
        ends first, the failure shows the publisher's end too (a port another process took)."""
        deadline = time.monotonic() + deadline_s
        pattern = re.compile(r"received [1-9]")  # a subscriber counts only measured messages
        while not pattern.search(watched.seen[-400:]):
            if watched.process.poll() is not None:
                self.fail(f"exited {watched.process.returncode} before measured data arrived: "
                          f"{watched.seen!r}; {self.publisher_state(publisher)}")
            remaining = deadline - time.monotonic()
            self.assertGreater(remaining, 0, f"no measured data within {deadline_s} s")
            ready, _, _ = select.select([watched.terminal], [], [], min(remaining, 0.5))
            if ready:
                try:
                    watched.seen += os.read(watched.terminal, 4096).decode(errors="replace")
                except OSError:  # the child closed its side
                    pass

    @staticmethod
    def publisher_state(publisher):
        if publisher is None or publisher.poll() is None:
            return "the publisher still runs" if publisher else "no publisher"
        return f"the publisher exited {publisher.returncode}: {publisher.stderr.read()!r}"

    def finish_watched(self, watched, deadline_s=DEFAULT_WAIT_S):
        return self.finish(watched.process, watched.json_path, deadline_s)
