"""End-to-end: another user on the same host cannot make netprof or its tools write where
they did not mean to (issue 30). As root, a link planted in a folder others can write to, or
a file another user owns, is refused in one line (exit 2) and the file it points at is left
alone; a key file another user owns is refused as ssh refuses such a key. Also the floors of
the seconds options and the verdict of a ping-pong run whose probes mostly timed out.

The planted files belong to `nobody`, as another user's would; the folders are made here
(mode 1777, owned by nobody, as a shared folder the kernel's protected_symlinks lets root
follow links in; and 0777 without the sticky bit, where it never looks).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from netprof_test_case import ROOT, NetprofTestCase, free_udp_port, run_script

sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import netprof_output as output  # noqa: E402

NOBODY = 65534
USAGE = 2
SECRET = "root's secret\n"
COMPARE = os.path.join(ROOT, "scripts", "tools", "compare.py")
PAIR = ["--local-pair", "-t", "0.3", "--warmup-time", "0", "--wait", "5"]


def udp_pair():
    return ["-u", f"127.0.0.1:{free_udp_port()}", "-u", f"127.0.0.1:{free_udp_port()}"]


def sockets_of(pid):
    try:
        return sum(1 for fd in os.listdir(f"/proc/{pid}/fd")
                   if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))
    except OSError:
        return 0


def wait_until_both_children_have_sockets(pair_pid, deadline_s=10):
    """Until both processes of a local pair have checked their command lines (each re-checks
    --json) and opened their sockets, which they do only after that."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pair_pid}/task/{pair_pid}/children") as f:
                children = f.read().split()
        except OSError:
            return
        if len(children) == 2 and all(sockets_of(child) for child in children):
            return
        time.sleep(0.01)


class HostileFilesCase(NetprofTestCase):
    def setUp(self):
        super().setUp()
        # Our own private folder (the checkout may be in a 0700 home nobody cannot enter).
        self.private = tempfile.mkdtemp(prefix="netprof-hostile-files-")
        self.addCleanup(shutil.rmtree, self.private)
        os.chmod(self.private, 0o755)
        self.secret = os.path.join(self.private, "secret.conf")
        with open(self.secret, "w") as f:
            f.write(SECRET)
        os.chmod(self.secret, 0o600)

    def shared_folder(self, mode, owner=NOBODY):
        folder = os.path.join(self.private, f"shared-{mode:o}")
        os.mkdir(folder)
        os.chown(folder, owner, owner)
        os.chmod(folder, mode)
        return folder

    def plant_link(self, folder, name, target):
        link = os.path.join(folder, name)
        os.symlink(target, link)
        os.lchown(link, NOBODY, NOBODY)
        return link

    def plant_file(self, folder, name, text="nobody's\n"):
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, NOBODY, NOBODY)
        return path

    def assert_secret_untouched(self):
        with open(self.secret) as f:
            self.assertEqual(f.read(), SECRET)
        self.assertEqual(os.stat(self.secret).st_mode & 0o777, 0o600)

    def assert_refused(self, result, says):
        self.assertEqual(result.returncode, USAGE, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        self.assertIn(says, result.stderr)


@unittest.skipUnless(os.geteuid() == 0, "needs root to plant files as another user")
class JsonOutputTest(HostileFilesCase):
    def test_a_link_planted_in_a_sticky_shared_folder_is_refused(self):
        link = self.plant_link(self.shared_folder(0o1777), "report.json", self.secret)
        result = self.run_netprof(*PAIR, *udp_pair(), "--json", link)
        self.assert_refused(result, "is a symbolic link in")
        self.assert_secret_untouched()

    def test_a_link_planted_in_a_world_writable_folder_is_refused(self):
        link = self.plant_link(self.shared_folder(0o777, owner=0), "report.json", self.secret)
        result = self.run_netprof(*PAIR, *udp_pair(), "--json", link)
        self.assert_refused(result, "is a symbolic link in")
        self.assert_secret_untouched()

    def test_another_users_file_is_never_replaced(self):
        theirs = self.plant_file(self.shared_folder(0o1777), "report.json")
        result = self.run_netprof(*PAIR, *udp_pair(), "--json", theirs)
        self.assert_refused(result, "belongs to another user (uid 65534)")
        with open(theirs) as f:
            self.assertEqual(f.read(), "nobody's\n")

    def test_a_link_planted_during_the_run_is_not_followed(self):
        folder = self.shared_folder(0o1777)
        report = os.path.join(folder, "report.json")
        process, _ = self.start("--local-pair", "-t", "2", "--warmup-time", "0", "--wait",
                                "5", *udp_pair(), "--json", report)
        wait_until_both_children_have_sockets(process.pid)
        self.plant_link(folder, "report.json", self.secret)
        result = self.finish(process, deadline_s=30)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("is a symbolic link in", result.stderr)
        self.assert_secret_untouched()
        self.assertEqual(sorted(os.listdir(folder)), ["report.json"])  # no temporary left

    def test_our_own_report_in_a_shared_folder_is_still_replaced(self):
        folder = self.shared_folder(0o1777)
        report = os.path.join(folder, "report.json")
        with open(report, "w") as f:
            f.write("old\n")
        result = self.run_netprof(*PAIR, *udp_pair(), "--json", report)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(report) as f:
            self.assertEqual(json.load(f)["result"]["status"], "SUCCESS")


@unittest.skipUnless(os.geteuid() == 0, "needs root to plant files as another user")
class ToolOutputTest(HostileFilesCase):
    def reports(self):
        from test_compare import report
        paths = []
        for index in range(3):
            paths.append(os.path.join(self.private, f"run-{index}.json"))
            with open(paths[-1], "w") as f:
                json.dump(report(10_000 + index), f)
        return paths

    def test_compare_json_through_a_planted_link_is_refused(self):
        link = self.plant_link(self.shared_folder(0o1777), "comparison.json", self.secret)
        runs = self.reports()
        returncode, _, stderr = run_script(COMPARE, "--baseline", *runs, "--contender", *runs,
                                           "--json", link)
        self.assertEqual(returncode, USAGE, stderr)
        self.assertEqual(stderr.count("\n"), 1, stderr)
        self.assertIn("is a symbolic link in", stderr)
        self.assert_secret_untouched()

    def test_every_way_a_tool_writes_refuses_a_link_and_another_users_file(self):
        folder = self.shared_folder(0o1777)
        link = self.plant_link(folder, "out", self.secret)
        theirs = self.plant_file(folder, "theirs")
        writers = {
            "write_text": lambda path: output.write_text(path, "x"),
            "open_for_writing": lambda path: output.open_for_writing(path).__enter__(),
            "append_text": lambda path: output.append_text(path, "x"),
            "open_log": output.open_log,
            "save_figure": lambda path: output.save_figure(None, path),
        }
        for name, write in writers.items():
            for path, says in ((link, "symbolic link"), (theirs, "another user")):
                with self.subTest(writer=name, path=os.path.basename(path)):
                    with self.assertRaises(output.OutputRefused) as refused:
                        write(path)
                    self.assertIn(says, str(refused.exception))
                    self.assertIn(path, str(refused.exception))
        self.assert_secret_untouched()
        with open(theirs) as f:
            self.assertEqual(f.read(), "nobody's\n")
        self.assertEqual(sorted(os.listdir(folder)), ["out", "theirs"])


class ToolOutputReplacementTest(HostileFilesCase):
    def test_a_file_is_replaced_whole_through_a_temporary_and_keeps_its_mode(self):
        path = os.path.join(self.private, "table.csv")
        with open(path, "w") as f:
            f.write("old, and longer than the new\n")
        os.chmod(path, 0o640)
        output.write_text(path, "new\n")
        with open(path) as f:
            self.assertEqual(f.read(), "new\n")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)
        self.assertEqual(sorted(os.listdir(self.private)), ["secret.conf", "table.csv"])

    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self):
        path = os.path.join(self.private, "table.csv")
        with open(path, "w") as f:
            f.write("old\n")
        with self.assertRaises(ZeroDivisionError):
            with output.open_for_writing(path) as f:
                f.write("half")
                raise ZeroDivisionError
        with open(path) as f:
            self.assertEqual(f.read(), "old\n")
        self.assertEqual(sorted(os.listdir(self.private)), ["secret.conf", "table.csv"])

    def test_a_link_in_a_private_folder_is_written_through(self):
        target = os.path.join(self.private, "target.md")
        link = os.path.join(self.private, "link.md")
        os.symlink(target, link)
        output.write_text(link, "through\n")
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertEqual(f.read(), "through\n")


@unittest.skipUnless(os.geteuid() == 0, "needs root to give a file to another user")
class KeyFileOwnerTest(HostileFilesCase):
    def test_a_key_file_another_user_owns_is_refused(self):
        key = os.path.join(self.private, "key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(key, 0o600)
        os.chown(key, NOBODY, NOBODY)
        result = self.run_netprof(*PAIR, *udp_pair(), "--key-file", key)
        self.assert_refused(result, f"invalid value '{key}' for --key-file: it belongs to "
                                    "another user (uid 65534)")


class SecondsFloorTest(NetprofTestCase):
    def test_a_nanosecond_probe_timeout_or_run_is_refused(self):
        for option in ("--probe-timeout", "-t", "--wait", "--idle-timeout", "--interval"):
            with self.subTest(option=option):
                result = self.run_netprof("--local-pair", "--mode", "ping-pong", *udp_pair(),
                                          option, "1e-9")
                self.assertEqual(result.returncode, USAGE, result.stderr)
                self.assertIn("expected seconds from 0.001 to 86400", result.stderr)
                self.assertEqual(result.stderr.count("\n"), 1, result.stderr)

    def test_a_ping_pong_run_whose_probes_mostly_time_out_fails(self):
        # The subscriber drops 80% of what it receives (--drop-rate), so four probes in five
        # wait out their --probe-timeout unanswered.
        result = self.run_netprof("--local-pair", "--mode", "ping-pong", "-t", "0.5",
                                  "--warmup-time", "0", "--probe-timeout", "0.001",
                                  "--drop-rate", "80", *udp_pair(), json_name="pair")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.json["result"]["status"], "FAIL")
        self.assertTrue(any("most probes timed out" in problem
                            for problem in result.json["result"]["problems"]),
                        result.json["result"])


class ScpRemotePathTest(HostileFilesCase):
    """launch.py copies the binary with scp, whose remote path a remote shell reads in the
    legacy protocol (scp -O, OpenSSH before 9.0): it must be one word there, whatever it holds."""

    def test_the_remote_path_reaches_the_remote_shell_as_one_word(self):
        import netprof_remote as remote
        planted = os.path.join(self.private, "injected")
        path = f"/tmp/a b;touch {planted};$(touch {planted})`touch {planted}`'\"/netprof"
        argv = remote.Ssh().copy("-local", "user@host", path)
        self.assertEqual(argv[0], "scp")
        self.assertEqual(argv[-3:-1], ["--", "-local"])  # a local name is never an option
        destination, remote_path = argv[-1].split(":", 1)
        self.assertEqual(destination, "user@host")
        # What legacy scp runs on the host: `scp -t PATH` through the user's shell.
        shell = subprocess.run(["sh", "-c", f"printf '%s' {remote_path}"], capture_output=True,
                               text=True, timeout=10)
        self.assertEqual(shell.stdout, path)
        self.assertFalse(os.path.exists(planted))

    def test_a_work_dir_that_would_need_quoting_is_refused(self):
        import netprof_hosts_file as hosts_file
        base = {"host": [{"name": "a", "role": "publisher", "ssh": "h0", "address": "10.0.0.1"},
                         {"name": "b", "role": "subscriber", "ssh": "h1",
                          "address": "10.0.0.2"}]}
        for work_dir in ("/tmp/a b", "/tmp/$(id)", "/tmp/x;rm", "-rf", "/tmp/'q'", ""):
            for where in ("top", "host"):
                with self.subTest(work_dir=work_dir, where=where):
                    document = json.loads(json.dumps(base))
                    (document if where == "top" else document["host"][1])["work_dir"] = work_dir
                    with self.assertRaises(hosts_file.HostsFileError) as refused:
                        hosts_file.parse(document)
                    self.assertIn("work_dir", str(refused.exception))
        hosts_file.parse({**base, "work_dir": "/var/tmp/netprof-runs_2"})  # an ordinary one


if __name__ == "__main__":
    unittest.main()
