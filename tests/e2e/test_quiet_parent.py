"""End-to-end: a local pair's parent sleeps while its members run (issue 29, "Truth first").

The parent of --local-pair (and the main thread of --local-pair --threads) waits for its
members. It used to look every 5 ms: about 200 wake-ups a second, each taking a CPU from a
spinning member on a 2-core machine, so that netprof's own machinery showed in the latency
tails it reported. Now it sleeps in the kernel until a member ends, an interrupt comes or a
deadline passes.

Judged by the waiting thread's voluntary context switches over a second of the measured phase,
read from /proc: a count of wake-ups, not a time, so a loaded machine does not change it.
"""

import time
import unittest

from netprof_test_case import NetprofTestCase

# Over one second: the old parent made about 200; a sleeping one makes none, or a few at most
# (a child's stderr, the end of the publisher's warm-up).
MOST_WAKE_UPS = 20
SECONDS = 4
DEADLINE_S = 60


def voluntary_switches(pid):
    """The voluntary context switches of the main thread of `pid` so far."""
    with open(f"/proc/{pid}/task/{pid}/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError(f"no voluntary_ctxt_switches in /proc/{pid}/task/{pid}/status")


class QuietParentTest(NetprofTestCase):
    def wake_ups_in_one_second(self, *layout):
        process, path = self.start("--local-pair", *layout, "--mode", "ping-pong", "-t",
                                   str(SECONDS), "--warmup-time", "0.2", "--quiet",
                                   json_name="pair")
        time.sleep(1.5)  # past the set-up and the warm-up, into the measured phase
        before = voluntary_switches(process.pid)
        time.sleep(1.0)
        after = voluntary_switches(process.pid)
        done = self.finish(process, path, DEADLINE_S)
        self.assertEqual(done.returncode, 0, done.stderr)
        return after - before

    def test_the_parent_of_a_process_pair_sleeps_while_it_runs(self):
        wake_ups = self.wake_ups_in_one_second()
        self.assertLessEqual(wake_ups, MOST_WAKE_UPS,
                             f"the parent woke {wake_ups} times in one second of the run")

    def test_the_main_thread_of_a_thread_pair_sleeps_while_it_runs(self):
        wake_ups = self.wake_ups_in_one_second("--threads")
        self.assertLessEqual(wake_ups, MOST_WAKE_UPS,
                             f"the main thread woke {wake_ups} times in one second of the run")


if __name__ == "__main__":
    unittest.main()
