"""End-to-end: two runs given one name (issue 30, item 5).

Two publishers and two subscribers, all started with the same --dds topic or the same --iceoryx
service, hear each other: before, subscriber B could end with SUCCESS having measured run A, and
publisher A with SUCCESS while its own subscriber failed. Now each process belongs to one run
(its run id) and counts the other run's messages as foreign; no publisher passes, and the
verdicts name a second run on the medium. Where both subscribers joined one publisher, that
publisher names the two processes using id 1, and the subscriber it measured may pass if no
message of the other run reached it (it measured that run whole). docs/hostile-input.md, "Replays and a second run".
"""

import os
import unittest
import uuid

from netprof_test_case import NetprofTestCase
from test_iceoryx import RunningRoudi

DEADLINE_S = 40
PACED = ["--send-hz", "1000", "-t", "1", "--warmup-time", "0.2", "--wait", "8"]
SECOND_RUN = "a second run shares this medium"


class SecondRunCase(NetprofTestCase):
    def run_two_runs(self, medium):
        """Starts runs A and B on `medium`, publishers first; returns their four results."""
        started = []
        for name in ("pub-a", "pub-b", "sub-a", "sub-b"):
            role = "0" if name.startswith("pub") else "1"
            started.append(self.start("-i", role, *medium, *PACED, json_name=name))
        return [self.finish(process, path, DEADLINE_S) for process, path in started]

    def assert_no_run_passes_and_the_second_run_is_named(self, results):
        said = "".join(f"\n--- exit {r.returncode}\n{r.stdout}{r.stderr}" for r in results)
        publishers, subscribers = results[:2], results[2:]
        for pub in publishers:
            self.assertNotEqual(pub.returncode, 0, said)
        self.assertTrue(any(SECOND_RUN in " ".join(r.json["result"]["problems"])
                            for r in results), said)
        self.assertTrue(any(r.json["foreign_run_messages"] > 0 for r in results), said)
        passed = [sub for sub in subscribers if sub.returncode == 0]
        self.assertLessEqual(len(passed), 1, said)
        for sub in passed:
            # Both subscribers joined one publisher and no message of the other run reached
            # this one: it measured that publisher's run whole, and the publisher names the
            # two processes that answered to its id 1.
            [own] = [p for p in publishers if p.json["run_id"] == sub.json["run_id"]]
            self.assertIn("two live processes use -i 1", " ".join(own.json["result"]["problems"]),
                          said)


class DdsSecondRunTest(SecondRunCase):
    def test_two_runs_on_one_topic_fail_their_publishers_naming_the_second_run(self):
        topic = "netprof_e2e_" + uuid.uuid4().hex
        results = self.run_two_runs(["--dds", topic, "--dds-loopback"])
        self.assert_no_run_passes_and_the_second_run_is_named(results)


class IceoryxSecondRunTest(RunningRoudi, SecondRunCase):
    def test_two_runs_on_one_service_fail_their_publishers_naming_the_second_run(self):
        service = f"e2e-second-run-{os.getpid()}"
        results = self.run_two_runs(["--iceoryx", service])
        self.assert_no_run_passes_and_the_second_run_is_named(results)


if __name__ == "__main__":
    unittest.main()
