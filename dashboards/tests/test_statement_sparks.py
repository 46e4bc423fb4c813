"""The Statements tab's small lines of executions per second: drawn wherever the source read without a gap.

Seen in the audit: over the last 15 minutes (60 s statement reads) every line was empty. The 40 bins were
22.5 s wide, a read ended in one bin of three, and each value stood alone between two "gaps": an SVG
polyline of one point draws nothing.
"""

import re
from datetime import timedelta

import numpy as np
import pytest

from dashboards.analysis.statements import Bins, bins_at, bins_of, spark_bins, spark_points
from store.points import micros
from testing.dashboards import TEN_MINUTES, make_server, write_run_data
from testing.statements import SHAPES, write_reads

START, END = TEN_MINUTES


def test_a_bin_is_at_least_one_and_a_half_reads_wide():
    reads = [(START, 60_000)] * 15
    assert spark_bins(reads, 900, 40) == 10  # 15 minutes of 60 s reads: bins of 90 s
    assert spark_bins(reads, 86_400, 40) == 40  # a day: 40 bins of 36 minutes
    assert spark_bins(reads, 65, 40) == 1  # a dip's 65 s: one bin
    assert spark_bins([], 900, 40) == 40  # no read: the bins say so


def test_reads_given_as_microseconds_fill_the_bins_their_datetimes_do():
    # 4 bins of 150 s over (START, START + 600 s]. Reads ending 30 s before START (kept in the first bin), at
    # 150 s (the second bin's start: bin 150 / 150 = 1), at 299 s (bin 1) and at 600 s (the end: bin 3).
    offsets, intervals = [-30, 150, 299, 600], [60_000, 60_000, 30_000, 45_000]
    ends = [START + timedelta(seconds=s) for s in offsets]
    expected = Bins([START + timedelta(seconds=150 * i) for i in range(4)], [60.0, 90.0, 0.0, 45.0])
    us = np.array([micros(t) for t in ends], np.int64)
    assert bins_at(us, intervals, START, END, 4) == expected
    assert bins_of(list(zip(ends, intervals, strict=True)), START, END, 4) == expected


def test_a_lone_value_between_gaps_is_a_dash_not_nothing():
    # 3 values over 120 px: x 0, 60, 120; scaled to the max (8): y = 24 - v / 8 * 22 - 1.
    assert spark_points([4.0, None, 8.0]) == ["-1.5,12.0 1.5,12.0", "118.5,1.0 121.5,1.0"]
    assert spark_points([4.0, 8.0, None]) == ["0.0,12.0 60.0,1.0"]


@pytest.mark.django_db
def test_ten_minutes_of_minute_reads_draw_one_line_of_six_points_per_statement(admin_client):
    server = make_server("sparks", poll_interval=10)
    write_run_data(server.pk, START, 61)
    write_reads(server.pk, START, 10)  # every 60 s, the first ending at START + 60 s
    body = admin_client.get(f"/servers/{server.pk}/statements/",
                            {"from": START.isoformat(), "to": END.isoformat()}).content.decode()
    lines = [re.findall(r'<polyline points="([^"]*)"', svg)
             for svg in re.findall(r'<svg class="spark".*?</svg>', body)]
    # 600 s in bins of at least 90 s: 6 bins of 100 s, each holding one or two reads: no gap.
    assert len(lines) == len(SHAPES) and all(len(svg) == 1 and len(svg[0].split()) == 6 for svg in lines)
