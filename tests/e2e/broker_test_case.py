"""What the broker transports' end-to-end tests share (transports/mqtt/tests/test_mqtt.py and
transports/redis/tests/test_redis.py; here beside stream_test_case.py, as neither transport owns
it): the runs they make, and the checks of a broker that is absent, whose host drops the
connection, or that dies mid-run, worded as netprof words them for the transport. Loopback
only."""

import glob
import os
import socket
import time

from netprof_test_case import NetprofTestCase, free_port, unanswered_tcp_port

DEADLINE_S = 40
# A generous probe timeout, so that an echo that is only late on a loaded machine is not counted
# as lost: what these tests check is that the broker carries every probe and every echo.
PING_PONG = ["--mode", "ping-pong", "--count", "300", "--warmup-count", "30",
             "--probe-timeout", "5"]


def owned_folders(parent, transport):
    """The folders netprof's own brokers of `transport` ("mqtt", "redis") use under `parent`,
    which it must remove when it stops them."""
    return set(glob.glob(os.path.join(parent, f"netprof-{transport}-*")))


class BrokerTestCase(NetprofTestCase):
    """A subclass names its transport as netprof's messages do: OPTION, its naming option
    ("--mqtt"), and BROKER, what the messages call the broker ("the MQTT broker")."""

    OPTION = None
    BROKER = None

    def assert_absent_broker_is_a_runtime_error_at_once(self):
        port = free_port(socket.SOCK_STREAM)  # nothing listens there
        started = time.monotonic()
        result = self.run_netprof("-i", "0", self.OPTION, f"127.0.0.1:{port}", "-t", "1",
                                  deadline_s=15)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"cannot reach {self.BROKER} at 127.0.0.1:{port}", result.stderr)
        self.assertIn("refused", result.stderr)
        self.assertLess(time.monotonic() - started, 10)

    def assert_dropping_host_is_given_up_on_in_bounded_time(self, said):
        """A broker's host that drops the connection: a blocking connect would wait for TCP's two
        minutes; netprof gives up after 5 s with status 3 and `said` (a format string of the
        port) on stderr."""
        with unanswered_tcp_port() as port:
            started = time.monotonic()
            result = self.run_netprof("-i", "1", self.OPTION, f"127.0.0.1:{port}", deadline_s=20)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(said.format(port=port), result.stderr)
        self.assertLess(time.monotonic() - started, 15)

    def assert_broker_dying_mid_run_ends_both_roles_with_status_3(self, broker, port):
        """`broker`, the test's own at `port`, killed once measured data flows (not in the
        handshake): the publisher and the subscriber both exit 3, the publisher saying the
        connection was lost. Returns the publisher's result."""
        common = [self.OPTION, f"127.0.0.1:{port}"]
        subscriber = self.start_watched("-i", "1", *common)
        publisher, path = self.start("-i", "0", *common, "-t", "20", "--send-hz", "1000",
                                     json_name="dies")
        self.wait_for_measured_data(subscriber, publisher=publisher)
        broker.kill()
        broker.wait(timeout=10)
        result = self.finish(publisher, path, deadline_s=DEADLINE_S)
        self.assertEqual(result.returncode, 3, result.stdout + result.stderr)
        self.assertIn(f"the connection to {self.BROKER} at 127.0.0.1:{port} was lost",
                      result.stdout)
        self.assertEqual(self.finish_watched(subscriber, deadline_s=DEADLINE_S).returncode, 3)
        return result
