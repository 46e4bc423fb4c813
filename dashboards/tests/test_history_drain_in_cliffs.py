"""A release whose drain falls in steps the cliff rule takes one by one is one hump, to where it settled.

Seen live on the demo server (5 s polls, a consistent snapshot held 19:48:18-19:50:48.5 under 4 rw sessions, the
run "audit7-held"): the history rose to 150,456 (19:50:48), then read 97,913, 59,113, 21,264 (19:51:03), 293
(19:51:08) and 55, then wandered 29 to 3,063. 21,264 is a cliff's bottom (under a quarter of 97,913, two polls
before); 293 is none (the polls after it jump by up to 1,200). The stability verdict said "released: drained to
21,264 by 19:51:03", where by hand it drained to 293 by 19:51:08: the first poll within 1 % of the fall
(150,456 to the 55 the polls fell to) of 55.
"""

from datetime import UTC, datetime, timedelta

from dashboards.analysis.history_shape import shape

FIRST = datetime.fromisoformat("2026-11-27T19:47:53.855102+00:00").astimezone(UTC)
# The run's stability page's history polls, as read: seconds after the first, and the length.
OFFSETS_S = (
    0.0, 5.073, 10.078, 15.044, 20.298, 25.034, 30.488, 36.045, 40.032, 45.068, 49.985, 54.988, 60.028, 64.992,
    69.998, 75.062, 80.041, 85.021, 89.996, 95.052, 99.998, 105.021, 110.007, 115.011, 119.997, 125.008, 130.037,
    135.025, 139.994, 145.01, 149.994, 155.137, 160.078, 165.09, 169.994, 175.002, 180.149, 185.086, 190.008,
    195.004, 200.098, 205.043, 210.045, 215.01, 220.009, 225.007, 230.045, 235.06, 240.077, 245.022, 249.994,
    255.04, 260.05, 265.313, 270.13, 275.019, 280.338, 285.056, 290.025, 295.084, 300.193, 305.083, 310.179,
    315.008, 320.075, 325.207, 330.0, 335.029, 339.998, 345.078, 350.039, 355.07, 360.109, 365.106, 370.077,
    375.053, 380.097, 385.045, 390.001, 395.081
)

HISTORY = (
    995, 715, 740, 1272, 2376, 308, 8576, 18348, 21905, 27378, 32247, 39938, 45842, 50561, 53564, 56473, 60462,
    64424, 68578, 72776, 78205, 84225, 89113, 93562, 97743, 102576, 107191, 112385, 118165, 122502, 126974, 132001,
    135612, 139902, 145044, 150456, 97913, 59113, 21264, 293, 55, 269, 260, 277, 113, 47, 29, 40, 684, 685, 1384,
    168, 534, 562, 145, 205, 220, 587, 595, 85, 387, 27, 459, 248, 207, 219, 154, 429, 757, 699, 270, 206, 988, 423,
    335, 320, 174, 455, 1415, 3063
)


def test_a_drain_the_cliff_rule_cut_in_two_is_said_to_where_it_settled():
    ts = [FIRST + timedelta(seconds=s) for s in OFFSETS_S]
    humps = shape(ts, [float(v) for v in HISTORY]).humps
    assert len(humps) == 1
    assert (humps[0].peak, humps[0].peak_at) == (150_456, ts[HISTORY.index(150_456)])
    assert (humps[0].fell_to, humps[0].fell_at) == (293, ts[HISTORY.index(293)])
