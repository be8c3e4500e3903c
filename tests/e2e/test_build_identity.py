"""End-to-end: a binary names the build it came from, in --version and in every JSON report,
so a saved result can be traced to its exact commit."""

import re
import subprocess
import unittest

from netprof_test_case import ROOT, NetprofTestCase

VERSION_LINE = re.compile(
    r"^netprof \d+\.\d+\.\d+ \((?P<type>\w+), commit (?P<commit>[0-9a-f]{12}(-dirty)?|unknown)\)\n$")


def checkout_head():
    """The checkout's commit (12 hex digits), or None outside a git work tree."""
    try:
        done = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


class BuildIdentityTest(NetprofTestCase):
    def version(self):
        result = self.run_netprof("--version", deadline_s=20)
        self.assertEqual(result.returncode, 0, result.stderr)
        match = VERSION_LINE.match(result.stdout)
        self.assertIsNotNone(match, result.stdout)
        return match

    def test_version_names_the_commit_of_this_checkout(self):
        head = checkout_head()
        if head is None:
            self.skipTest("the checkout is not a git work tree")
        self.assertEqual(self.version()["commit"].removesuffix("-dirty"), head)

    def test_the_json_report_names_the_same_build_as_version(self):
        version = self.version()
        result = self.run_netprof("--local-pair", "-t", "0.2", "--warmup-time", "0.1",
                                  "--quiet", json_name="pair", deadline_s=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        tool = result.json["tool"]
        self.assertEqual(tool["commit"], version["commit"])
        self.assertEqual(tool["build_type"], version["type"])


if __name__ == "__main__":
    unittest.main()
