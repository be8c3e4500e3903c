"""scripts/bench/cpu_idle_lib.sh, which blocking_vs_bare.sh uses to keep idle CPUs polling
instead of halting: under the haltpoll driver it sets guest_halt_poll_ns, elsewhere it disables
only the idle states that halt and were on; it puts back only what it changed, and a script that
exits (or is interrupted) leaves the host's idle settings as it found them. Run on a copy of
sysfs's layout in a temporary folder, never the host's."""

import os
import subprocess
import tempfile
import unittest

from netprof_test_case import ROOT

BENCH = os.path.join(ROOT, "scripts", "bench")


class CpuIdleLibTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.TemporaryDirectory()
        self.addCleanup(self.root.cleanup)
        for cpu in (0, 1):
            self.state(cpu, 0, "POLL", 0)
            self.state(cpu, 1, "haltpoll", 0)
        self.state(0, 2, "C2", 1)  # disabled by the host's owner: not ours to put back
        self.write("cpuidle/current_driver", "intel_idle")
        self.write("haltpoll/guest_halt_poll_ns", "0")
        self.write("haltpoll/guest_halt_poll_grow_start", "50000")

    def write(self, path, text):
        path = os.path.join(self.root.name, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(text + "\n")

    def read(self, path):
        with open(os.path.join(self.root.name, path)) as text:
            return text.read().strip()

    def state(self, cpu, index, name, disabled):
        folder = os.path.join(self.root.name, f"cpu{cpu}", "cpuidle", f"state{index}")
        os.makedirs(folder)
        with open(os.path.join(folder, "name"), "w") as out:
            out.write(name + "\n")
        with open(os.path.join(folder, "disable"), "w") as out:
            out.write(f"{disabled}\n")

    def disabled(self, cpu, index):
        path = os.path.join(self.root.name, f"cpu{cpu}", "cpuidle", f"state{index}", "disable")
        with open(path) as text:
            return text.read().strip()

    def bash(self, script):
        environment = dict(os.environ, cpu_sysfs=self.root.name, TMPDIR=self.root.name,
                           haltpoll_parameters=os.path.join(self.root.name, "haltpoll"))
        return subprocess.run(
            ["bash", "-c",
             f'source "{BENCH}/bench_lib.sh"; source "{BENCH}/cpu_idle_lib.sh"; {script}'],
            env=environment, capture_output=True, text=True, timeout=30)

    def test_holds_only_the_halting_states_that_were_on_then_puts_them_back(self):
        done = self.bash(
            'poll_when_idle 0,1 || exit 9; '
            'for f in "$cpu_sysfs"/cpu*/cpuidle/state*/disable; do echo "$f $(cat "$f")"; done; '
            "restore_idle")
        self.assertEqual(done.returncode, 0, done.stderr)
        held = {line.split()[0][len(self.root.name):]: line.split()[1]
                for line in done.stdout.splitlines()}
        self.assertEqual(held["/cpu0/cpuidle/state1/disable"], "1")
        self.assertEqual(held["/cpu1/cpuidle/state1/disable"], "1")
        self.assertEqual(held["/cpu0/cpuidle/state0/disable"], "0", "POLL is what idles then")
        self.assertEqual([self.disabled(0, 1), self.disabled(1, 1)], ["0", "0"])
        self.assertEqual(self.disabled(0, 2), "1", "a state the owner disabled stays disabled")

    def test_under_haltpoll_sets_the_poll_time_and_leaves_the_states_alone(self):
        self.write("cpuidle/current_driver", "haltpoll")
        done = self.bash('poll_when_idle 0,1 || exit 9; '
                         'echo "during $(cat "$haltpoll_parameters/guest_halt_poll_grow_start")"; '
                         'cpu_idle_description; restore_idle; cpu_idle_description')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines(), [
            "during 200000", "cpuidle haltpoll, guest_halt_poll_ns 200000",
            "cpuidle haltpoll, guest_halt_poll_ns 0"])
        self.assertEqual(self.read("haltpoll/guest_halt_poll_grow_start"), "50000")
        self.assertEqual([self.disabled(0, 1), self.disabled(1, 1)], ["0", "0"])
        # A paced script polls through its period: it sets how long.
        done = self.bash('halt_poll_ns=2000000; poll_when_idle 0,1 || exit 9; '
                         'cpu_idle_description; restore_idle')
        self.assertEqual(done.stdout.strip(), "cpuidle haltpoll, guest_halt_poll_ns 2000000")
        self.assertEqual(self.read("haltpoll/guest_halt_poll_ns"), "0")

    def test_none_means_every_cpu_and_choosing_leaves_the_host_as_it_was(self):
        done = self.bash('poll_when_idle none || exit 9; '
                         'cat "$cpu_sysfs/cpu0/cpuidle/state1/disable"; restore_idle')
        self.assertEqual(done.stdout.strip(), "1", done.stderr)
        self.assertEqual(self.disabled(0, 1), "0")
        self.write("cpuidle/current_driver", "haltpoll")
        done = self.bash('choose_idles both 0,1; echo "$idles|$host_idle"')
        self.assertEqual(done.stdout.strip(), "host poll|cpuidle haltpoll, guest_halt_poll_ns 0")
        self.assertEqual(self.read("haltpoll/guest_halt_poll_ns"), "0")

    def test_an_exiting_script_puts_the_states_back(self):
        done = self.bash("bench_start cpu_idle_test; poll_when_idle 0,1 || exit 9; exit 3")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertEqual([self.disabled(0, 1), self.disabled(1, 1)], ["0", "0"])

    def test_an_interrupted_script_puts_the_states_back(self):
        done = self.bash(
            "bench_start cpu_idle_test; poll_when_idle 0 || exit 9; kill -INT $$; sleep 5")
        self.assertEqual(done.returncode, 130, done.stderr)
        self.assertEqual(self.disabled(0, 1), "0")

    def test_says_why_when_it_cannot_hold(self):
        done = self.bash('poll_when_idle 7; echo "status $? note $idle_note"')
        self.assertIn("status 1 note no idle state to change on CPUs 7", done.stdout)
        # A state whose switch cannot be written (here a dangling link) undoes what was held.
        os.remove(os.path.join(self.root.name, "cpu1", "cpuidle", "state1", "disable"))
        os.symlink(os.path.join(self.root.name, "missing", "disable"),
                   os.path.join(self.root.name, "cpu1", "cpuidle", "state1", "disable"))
        done = self.bash('poll_when_idle 0,1; echo "status $? note $idle_note"')
        self.assertIn("status 1 note cannot write", done.stdout)
        self.assertEqual(self.disabled(0, 1), "0", "what it held before the failure is put back")


if __name__ == "__main__":
    unittest.main()
