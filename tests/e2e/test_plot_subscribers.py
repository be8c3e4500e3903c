"""End-to-end: scripts/tools/plot.py's per-subscriber plot of a sweep at one run per point.

Run as a user runs it (by path, through its #!/usr/bin/python3 line) on a sweep CSV written
here: three transports at 1, 2 and 4 subscribers, one run each, so most boxes hold one or two
values. The PNG is then read back: each transport must be drawn in its own colour (not as a
black median line) and the legend must sit below the panels, not on the data.
"""

import csv
import os
import tempfile
import unittest

from netprof_test_case import ROOT, run_script
from test_sweep import system_python_has_matplotlib

PLOT = os.path.join(ROOT, "scripts", "tools", "plot.py")
TRANSPORTS = ["udp", "shm", "zmq"]
# matplotlib's first three colours (tab10), which plot.py gives the series in order.
SERIES_COLOURS = [(0x1F, 0x77, 0xB4), (0xFF, 0x7F, 0x0E), (0x2C, 0xA0, 0x2C)]
SUBSCRIBER_COUNTS = [1, 2, 4]


def sweep_rows():
    rows = []
    for transport_index, transport in enumerate(TRANSPORTS):
        for count in SUBSCRIBER_COUNTS:
            row = {"transport": transport, "payload_size": "64", "status": "ok",
                   "subscribers": str(count), "repetition": "1",
                   "one_way_p50_ns": str(5000 * (transport_index + 1)),
                   "one_way_p99_ns": str(9000 * (transport_index + 1))}
            for index in range(max(SUBSCRIBER_COUNTS)):
                prefix = f"subscribers.{index}."
                given = index < count
                row[prefix + "id"] = str(index + 1) if given else ""
                row[prefix + "latency.one_way_ns.count"] = "100" if given else ""
                base = 4000 * (transport_index + 1) + 300 * index
                row[prefix + "latency.one_way_ns.p50"] = str(base) if given else ""
                row[prefix + "latency.one_way_ns.p99"] = str(2 * base) if given else ""
            rows.append(row)
    return rows


@unittest.skipUnless(system_python_has_matplotlib(), "/usr/bin/python3 has no matplotlib")
class SubscriberPlotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="netprof-plot-")
        cls.addClassCleanup(cls._tmp.cleanup)
        path = os.path.join(cls._tmp.name, "sweep.csv")
        rows = sweep_rows()
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        cls.result = run_script(PLOT, path)
        import matplotlib.image
        cls.image = matplotlib.image.imread(os.path.join(cls._tmp.name, "sweep-subscribers.png"))

    def count(self, colour, rows, tolerance=12):
        """Pixels of `rows` within `tolerance` (of 255) of `colour` in every channel."""
        import numpy
        wanted = numpy.array(colour) / 255.0
        close = numpy.abs(rows[..., :3] - wanted) <= tolerance / 255.0
        return int(close.all(axis=-1).sum())

    def test_the_plot_is_written(self):
        returncode, stdout, stderr = self.result
        self.assertEqual(returncode, 0, stderr)
        self.assertIn("sweep-subscribers.png", stdout)

    def test_each_transport_is_drawn_in_its_own_colour(self):
        height = len(self.image)
        panels = self.image[: int(height * 0.8)]
        for transport, colour in zip(TRANSPORTS, SERIES_COLOURS):
            self.assertGreater(self.count(colour, panels), 30,
                               f"{transport} is not drawn in its colour {colour} in the panels")

    def test_the_legend_is_below_the_panels(self):
        height = len(self.image)
        below = self.image[int(height * 0.9):]
        for transport, colour in zip(TRANSPORTS, SERIES_COLOURS):
            self.assertGreater(self.count(colour, below), 5,
                               f"no legend entry for {transport} below the panels")


if __name__ == "__main__":
    unittest.main()
