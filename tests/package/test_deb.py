"""The Debian package: CPack builds it from this build folder (NETPROF_BUILD_DIR), then its
files are checked as unpacked by dpkg -x (layout, control fields, no path of the build or
source folder, the man page, the bash completion), and, as root, it is installed with apt in a
throwaway mount namespace (install_in_namespace.sh) where a local pair and a sweep run from the
installed files. Nothing is written outside a temporary folder; every command has a deadline
and is killed with its process group when it outlives it.
"""

import gzip
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.realpath(os.environ.get("NETPROF_BUILD_DIR", "../../build"))
SOURCE_DIR = os.path.realpath(os.environ.get("NETPROF_SOURCE_DIR", os.path.join(HERE, "..", "..")))
CPACK = os.environ.get("NETPROF_CPACK", "cpack")

_work = None  # the module's temporary folder: the .deb and its unpacked files
_deb = None


def run(argv, deadline_s, **kwargs):
    """(exit status, stdout, stderr) of argv, run in a process group of its own that is killed
    whole when it outlives `deadline_s`."""
    process = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, **kwargs)
    try:
        stdout, stderr = process.communicate(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError(f"did not finish within {deadline_s} s: {argv}") from None
    return process.returncode, stdout, stderr


def unpacked(path):
    return os.path.join(_work, "root", path.lstrip("/"))


def setUpModule():
    global _work, _deb
    _work = tempfile.mkdtemp(prefix="netprof-package-")
    code, out, err = run([CPACK, "-G", "DEB", "-B", os.path.join(_work, "cpack"),
                          "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake")],
                         deadline_s=240, cwd=_work)
    if code != 0:
        raise AssertionError(f"cpack failed ({code}):\n{out}\n{err}")
    debs = [name for name in os.listdir(os.path.join(_work, "cpack")) if name.endswith(".deb")]
    if len(debs) != 1:
        raise AssertionError(f"cpack made {debs}, not one .deb:\n{out}")
    _deb = os.path.join(_work, debs[0])
    os.replace(os.path.join(_work, "cpack", debs[0]), _deb)
    shutil.rmtree(os.path.join(_work, "cpack"))
    code, _, err = run(["dpkg-deb", "-x", _deb, os.path.join(_work, "root")], deadline_s=60)
    if code != 0:
        raise AssertionError(f"dpkg-deb -x failed: {err}")


def tearDownModule():
    if _work:
        shutil.rmtree(_work, ignore_errors=True)


class PackageContentsTest(unittest.TestCase):
    def control_field(self, name):
        code, out, err = run(["dpkg-deb", "-f", _deb, name], deadline_s=30)
        self.assertEqual(code, 0, err)
        return out.strip()

    def test_depends_on_the_libraries_it_links_and_no_more(self):
        depends = [entry.split()[0] for entry in self.control_field("Depends").split(", ")]
        for library in ("libboost-program-options1.74.0", "libzmq5", "libsodium23",
                        "libddsc0debian", "libstdc++6"):
            self.assertIn(library, depends)
        # netprof runs without Python, and iox-roudi serves one transport of eleven.
        for optional in ("python3", "iceoryx", "python3-scipy", "python3-matplotlib"):
            self.assertNotIn(optional, depends)
        self.assertEqual(self.control_field("Recommends"), "python3")
        suggests = self.control_field("Suggests").split(", ")
        for package in ("iceoryx", "python3-matplotlib", "python3-scipy"):
            self.assertIn(package, suggests)
        self.assertEqual(self.control_field("Package"), "netprof")

    def test_maintainer_is_the_projects_not_a_placeholder(self):
        maintainer = self.control_field("Maintainer")
        self.assertRegex(maintainer, r"^netprof maintainers <[^@\s<>]+@[^@\s<>]+\.[a-z]+>$")
        self.assertNotIn("localhost", maintainer)

    def test_description_names_every_transport_of_the_binary(self):
        description = " ".join(self.control_field("Description").split())
        code, out, err = run([unpacked("/usr/bin/netprof"), "--list-transports"], deadline_s=30)
        self.assertEqual(code, 0, err)
        names = {"udp": "UDP unicast", "multicast": "multicast", "broadcast": "broadcast",
                 "tcp": "TCP", "uds": "Unix domain sockets", "mq": "POSIX message queues",
                 "shm": "shared memory", "zmq": "ZeroMQ", "nng": "NNG",
                 "dds": "Cyclone DDS", "fastdds": "Fast DDS", "iceoryx": "iceoryx",
                 "mqtt": "MQTT", "redis": "Redis pub/sub"}
        built = {line.split("\t")[0] for line in out.splitlines()}
        self.assertGreaterEqual(len(built), 11, out)
        for transport in sorted(built):
            self.assertIn(transport, names, "a new transport: name it in the Description "
                          "(cmake/packaging.cmake) and here")
            self.assertIn(names[transport], description)

    def test_lintian_finds_no_error_or_warning(self):
        if not shutil.which("lintian"):
            self.skipTest("needs lintian (scripts/setup/install_deps.sh --test installs it)")
        code, out, err = run(["lintian", "--fail-on", "error,warning", "--no-tag-display-limit",
                              _deb], deadline_s=240)
        self.assertEqual(code, 0, f"lintian:\n{out}{err}")

    def test_every_command_has_a_man_page_that_renders_without_warnings(self):
        commands = sorted(os.listdir(unpacked("/usr/bin")))
        self.assertGreaterEqual(len(commands), 8, commands)
        env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
        for command in commands:
            with self.subTest(command=command):
                page = unpacked(f"/usr/share/man/man1/{command}.1.gz")
                self.assertTrue(os.path.isfile(page), f"{command} has no man page")
                code, out, err = run(["man", "--warnings", "-l", page], deadline_s=60, env=env)
                self.assertEqual(code, 0, err)
                self.assertEqual(err, "")
                self.assertIn(command, out)
                self.assertIn("OPTIONS" if command != "netprof" else "SYNOPSIS", out)

    def test_installs_the_binary_tools_man_page_completion_and_docs(self):
        for path in ("/usr/bin/netprof", "/usr/bin/netprof-sweep", "/usr/bin/netprof-plot",
                     "/usr/share/netprof/lib/netprof_harness.py",
                     "/usr/share/man/man1/netprof.1.gz",
                     "/usr/share/bash-completion/completions/netprof",
                     "/usr/share/doc/netprof/copyright", "/usr/share/doc/netprof/README.md",
                     "/usr/share/doc/netprof/json-schema.md"):
            self.assertTrue(os.path.isfile(unpacked(path)), path)
        for command in ("netprof", "netprof-sweep", "netprof-plot"):
            self.assertTrue(os.access(unpacked("/usr/bin/" + command), os.X_OK), command)

    def test_no_installed_file_names_the_build_or_source_folder(self):
        for folder in {BUILD_DIR, SOURCE_DIR}:
            needle = folder.encode()
            for directory, _, files in os.walk(unpacked("/")):
                for name in files:
                    path = os.path.join(directory, name)
                    if os.path.islink(path):
                        continue
                    with open(path, "rb") as file:
                        content = file.read()
                    if name.endswith(".gz"):
                        content = gzip.decompress(content)
                    self.assertNotIn(needle, content, f"{path} names {folder}")

    def test_man_page_renders_without_warnings(self):
        env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
        code, out, err = run(["man", "--warnings", "-l",
                              unpacked("/usr/share/man/man1/netprof.1.gz")],
                             deadline_s=60, env=env)
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        for text in ("SYNOPSIS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
                     "--local-pair", "/dev/shm/netprof-NAME", "netprof-sweep"):
            self.assertIn(text, out)

    def complete(self, *words):
        """What the installed completion offers for the last of `words` (the ones before it
        already typed), as bash's programmable completion would call it."""
        script = ("source \"$1\"; shift; complete -p netprof; COMP_WORDS=(netprof \"$@\"); "
                  "COMP_CWORD=$#; _netprof; printf '%s\\n' \"${COMPREPLY[@]}\"")
        code, out, err = run(["bash", "--norc", "-c", script, "bash",
                              unpacked("/usr/share/bash-completion/completions/netprof"),
                              *words], deadline_s=30)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "complete -F _netprof netprof")
        return [line for line in lines[1:] if line]

    def test_completion_offers_the_modes_after_mode(self):
        self.assertEqual(self.complete("--mode", ""), ["stream", "ping-pong"])
        self.assertEqual(self.complete("--mode", "=", "p"), ["ping-pong"])
        self.assertEqual(self.complete("--mode", "="), ["stream", "ping-pong"])

    def test_completion_offers_the_options_of_core_and_transports(self):
        self.assertEqual(self.complete("--local-pair", "--sh"),
                         ["--shm", "--shm-history", "--shm-allow-user"])
        self.assertEqual(self.complete("-s", ""), [])  # a number: nothing to offer

    def test_version_names_the_commit_of_the_build(self):
        code, out, err = run([unpacked("/usr/bin/netprof"), "--version"], deadline_s=30)
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"^netprof \d+\.\d+\.\d+ \(\w+, commit ([0-9a-f]{12}(-dirty)?|unknown)\)\n$")
        if shutil.which("git") is None:  # a source tree without git (a tarball, a bare root)
            self.assertIn("commit unknown", out)
            return
        code, head, _ = run(["git", "-C", SOURCE_DIR, "rev-parse", "--short=12", "HEAD"],
                            deadline_s=30)
        if code == 0:
            self.assertIn(f"commit {head.strip()}", out)

    @unittest.skipIf(os.geteuid() == 0, "as root, InstalledPackageTest runs it from a real install")
    def test_a_local_pair_runs_from_the_unpacked_files(self):
        code, out, err = run([unpacked("/usr/bin/netprof"), "--local-pair", "-t", "1"],
                             deadline_s=60, cwd=_work)
        self.assertEqual(code, 0, err)
        self.assertIn("Test: SUCCESS", out)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare") and shutil.which("apt-get"),
                     "installing with apt in a private mount namespace needs root, unshare "
                     "and apt-get")
class InstalledPackageTest(unittest.TestCase):
    def test_apt_installs_it_and_the_installed_files_run(self):
        script = os.path.join(_work, "install_in_namespace.sh")
        shutil.copy(os.path.join(HERE, "install_in_namespace.sh"), script)
        # The build folder is often inside the source folder, and hidden with it.
        hidden = [folder for folder in sorted({SOURCE_DIR, BUILD_DIR})
                  if folder == SOURCE_DIR or not folder.startswith(SOURCE_DIR + os.sep)]
        code, out, err = run(["unshare", "--mount", "--propagation", "private", "bash", script,
                              _deb, _work, *hidden], deadline_s=240, cwd=_work)
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertIn("Test: SUCCESS", out)
        self.assertRegex(out, re.escape("== package: installed, ran and removed"))


if __name__ == "__main__":
    unittest.main()
