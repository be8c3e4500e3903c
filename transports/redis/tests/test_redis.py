"""End-to-end: real publisher and subscriber processes over Redis pub/sub through a redis-server
on loopback: a local-pair ping-pong with the server netprof starts (and stops), a publisher with
two subscribers through a server the test starts itself (the user's), a server that is absent,
refuses (a password) or dies mid-run (exit status 3 with a clear message and a report, never a
hang), a subscriber the server disconnects for lagging (client-output-buffer-limit pubsub), a
stranger publishing into the run's channels (counted as rejected, never judged), and the refusals
of a glob channel prefix, of a QoS Redis pub/sub cannot give and of a message over the limit
(exit status 2).

Every process runs under a deadline and is killed by PID in cleanup, the servers this file starts
included.
"""

import os
import shutil
import signal
import socket
import subprocess
import time
import unittest

from broker_test_case import DEADLINE_S, PING_PONG, BrokerTestCase, owned_folders
from netprof_test_case import accepts, free_port

MODEST = ["--send-hz", "1000", "-t", "2", "--warmup-time", "0.2"]


@unittest.skipUnless(shutil.which("redis-server"), "redis-server is not installed")
class RedisTestCase(BrokerTestCase):
    OPTION = "--redis"
    BROKER = "the Redis server"

    def start_server(self, extra=""):
        """A redis-server of the test's own on a free loopback port, as a user's server; killed
        by PID in cleanup. Returns (process, port)."""
        port = free_port(socket.SOCK_STREAM)
        folder = os.path.join(self._tmp.name, f"redis-{port}")
        os.mkdir(folder)
        config = os.path.join(folder, "redis.conf")
        with open(config, "w", encoding="utf-8") as file:
            file.write(f'bind 127.0.0.1\nport {port}\nprotected-mode yes\nsave ""\n'
                       f'appendonly no\ndir "{folder}"\nlogfile ""\n{extra}')
        return self.start_listening_server(["redis-server", config], port, "redis-server"), port

    def publish(self, port, channel, payload):
        """PUBLISH `payload` (bytes) to `channel` as a stranger, through hiredis's redis-cli."""
        done = subprocess.run(["redis-cli", "-p", str(port), "-x", "PUBLISH", channel],
                              input=payload, capture_output=True, timeout=10, check=False)
        self.assertEqual(done.returncode, 0, done.stderr)

    def assert_notes_name_the_server(self, report):
        notes = " ".join(report["endpoint"]["notes"])
        self.assertIn("server: Redis 7.", notes)
        self.assertIn("(INFO server: redis_version)", notes)
        self.assertIn("hiredis ", notes)


class LocalPairTest(RedisTestCase):
    def test_two_publishers_each_on_channels_of_their_own(self):
        self.assert_two_publishers_lose_nothing("--redis", *MODEST, deadline_s=DEADLINE_S)

    def test_ping_pong_through_its_own_server_which_it_stops(self):
        # The server's folder goes where TMPDIR says: this test's own, so that servers of tests
        # running beside it (the contract's) are not counted.
        self.use_own_tmpdir()
        result = self.run_netprof("--local-pair", "--redis", *PING_PONG, json_name="own",
                                  deadline_s=DEADLINE_S)
        report = self.assert_ping_pong_passed(result, "redis", 300)
        self.assert_notes_name_the_server(report)
        self.assertEqual(report["endpoint"]["qos"]["reliability"], "best-effort")
        self.assertEqual(owned_folders(self._tmp.name, "redis"), set(),
                         "the server's folder was left behind")
        server = report["endpoint"]["peer_addresses"][0].split()[-1]
        port = int(server.rsplit(":", 1)[1])
        self.assertFalse(accepts(port), "the redis-server netprof started still runs")


class UsersServerTest(RedisTestCase):
    def test_a_publisher_and_two_subscribers_through_a_users_server(self):
        server, port = self.start_server()
        common = ["--redis", f"127.0.0.1:{port}", "--redis-channel", "e2e:run-1"]
        subscribers = [self.start("-i", str(i), *common, json_name=f"sub{i}")
                       for i in (1, 2)]
        pub = self.run_netprof("-i", "0", "--subscribers", "2", *common, *MODEST,
                               json_name="pub", deadline_s=DEADLINE_S)
        subs = [self.finish(process, path, deadline_s=DEADLINE_S)
                for process, path in subscribers]
        self.assert_each_subscriber_got_everything(pub, subs)
        self.assertGreater(pub.json["publisher"]["messages_sent"], 0)
        self.assert_notes_name_the_server(pub.json)
        self.assertIsNone(server.poll(), "netprof stopped a server it did not start")

    def test_local_pair_uses_the_server_it_is_given_and_leaves_it_running(self):
        server, port = self.start_server()
        result = self.run_netprof("--local-pair", "--redis", f"127.0.0.1:{port}", *PING_PONG,
                                  json_name="users", deadline_s=DEADLINE_S)
        self.assert_ping_pong_passed(result, "redis", 300)
        self.assertIsNone(server.poll(), "netprof stopped a server it did not start")

    def test_a_stranger_publishing_into_the_runs_channels_is_counted_never_judged(self):
        _, port = self.start_server()
        common = ["--redis", f"127.0.0.1:{port}", "--redis-channel", "e2e:stranger"]
        subscriber, sub_path = self.start("-i", "1", *common, json_name="sub")
        publisher, pub_path = self.start("-i", "0", *common, "--send-hz", "500", "-t", "3",
                                         "--warmup-time", "0.2", json_name="pub")
        time.sleep(1.5)
        garbage = [b"not a netprof message", os.urandom(100), b"\x00" * 64]
        for payload in garbage:
            self.publish(port, "e2e:stranger:data", payload)
            self.publish(port, "e2e:stranger:echo:stranger", payload)
        pub = self.finish(publisher, pub_path, deadline_s=DEADLINE_S)
        sub = self.finish(subscriber, sub_path, deadline_s=DEADLINE_S)
        self.assert_each_subscriber_got_everything(pub, [sub])
        self.assertGreaterEqual(sub.json["rejected"], len(garbage))
        self.assertGreaterEqual(pub.json["rejected"], len(garbage))
        self.assertEqual(pub.json["subscribers"][0]["lost"], 0)


class ServerFailureTest(RedisTestCase):
    def test_absent_server_is_a_runtime_error_at_once(self):
        self.assert_absent_broker_is_a_runtime_error_at_once()

    def test_a_local_pair_without_redis_server_on_path_says_so(self):
        self.use_own_tmpdir()
        path = os.environ["PATH"]
        self.addCleanup(os.environ.__setitem__, "PATH", path)
        os.environ["PATH"] = self._tmp.name  # no redis-server there
        netprof = shutil.which(os.environ.get("NETPROF_BIN", "netprof"), path=path)
        result = self.finish(self.start("--local-pair", "--redis", "-t", "1",
                                        netprof=(netprof,))[0], deadline_s=15)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn("cannot start redis-server, the Redis server: not found on PATH "
                      "(apt-get install redis-server)", result.stderr)
        self.assertEqual(owned_folders(self._tmp.name, "redis"), set())

    def test_a_silent_server_is_given_up_on_in_bounded_time(self):
        # Something that accepts connections and never answers: netprof gives up after 5 s.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            port = silent.getsockname()[1]
            started = time.monotonic()
            result = self.run_netprof("-i", "1", "--redis", f"127.0.0.1:{port}", deadline_s=20)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the Redis server at 127.0.0.1:{port} did not answer INFO server within "
                      "5000 ms", result.stderr)
        self.assertLess(time.monotonic() - started, 15)

    def test_a_server_host_that_drops_the_connection_is_given_up_on_in_bounded_time(self):
        self.assert_dropping_host_is_given_up_on_in_bounded_time(
            "cannot reach the Redis server at 127.0.0.1:{port}: Connection timed out")

    def test_a_server_that_refuses_is_a_runtime_error_in_its_own_words(self):
        _, port = self.start_server("requirepass not-given-to-netprof\n")
        result = self.run_netprof("-i", "1", "--redis", f"127.0.0.1:{port}", deadline_s=15)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the Redis server at 127.0.0.1:{port} refused INFO server: NOAUTH",
                      result.stderr)

    def test_server_that_dies_mid_run_ends_both_roles_with_status_3_and_a_report(self):
        result = self.assert_broker_dying_mid_run_ends_both_roles_with_status_3(
            *self.start_server())
        self.assertIsNotNone(result.json, "no report was written")

    def test_a_subscriber_the_server_disconnects_for_lagging_says_why(self):
        # A small pub/sub output limit, and a subscriber stopped while the stream goes on: the
        # server drops its connection once its unread messages pass the limit.
        _, port = self.start_server("client-output-buffer-limit pubsub 256kb 128kb 1\n")
        common = ["--redis", f"127.0.0.1:{port}"]
        watched = self.start_watched("-i", "1", *common, json_name="lagging")
        publisher, _ = self.start("-i", "0", *common, "-t", "6", "-s", "1024",
                                  "--send-hz", "5000")
        # Stopped only once the stream flows: stopped during the handshake (a slow start under
        # ASan on a loaded machine), it would hold the publisher back instead of lagging.
        self.wait_for_measured_data(watched, publisher=publisher)
        watched.process.send_signal(signal.SIGSTOP)
        time.sleep(2)
        watched.process.send_signal(signal.SIGCONT)
        result = self.finish_watched(watched)  # its stderr went to the terminal
        self.assertEqual(result.returncode, 3, result.stdout)
        self.assertIn(f"the Redis server at 127.0.0.1:{port} closed the subscribed connection",
                      result.stdout)
        self.assertIn("lagged too far behind", result.stdout)
        self.assertIsNotNone(result.json, "no report was written")
        self.finish(publisher, deadline_s=DEADLINE_S)


class RefusalTest(RedisTestCase):
    def test_glob_channel_prefix_is_refused(self):
        for prefix in ("runs*", "run?", "run[1]"):
            self.assert_refused_in_one_line(["--local-pair", "--redis", "--redis-channel", prefix],
                                            2, "glob characters")

    def test_reliable_and_history_depth_are_refused(self):
        for asked in (["--reliability", "reliable"], ["--history", "keep-last:8"],
                      ["--history", "keep-all"]):
            result = self.run_netprof("--local-pair", "--redis", *asked, deadline_s=15)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(f"{' '.join(asked)} is not available on redis", result.stderr)

    def test_a_message_over_the_limit_is_refused(self):
        result = self.run_netprof("--local-pair", "--redis", "-s", str(5 << 20), deadline_s=30)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(f"-s {5 << 20} is too large for redis", result.stderr)
        self.assertIn("netprof sends at most 4 MiB", result.stderr)


if __name__ == "__main__":
    unittest.main()
