"""History list length of a drain with a late start, as polled on the suite's MariaDB 10.11.

`dashboards/tests/test_purge_drain_live.py` (3,000 transactions of history under a read view, purge
slowed to batches of 1, the read view closed, then a poll every 0.25 s), on 2026-11-26 at load 5:
(seconds since the first poll, history length), up to the first poll below the test's threshold of
750.25. Purge started only after the third poll.
"""

LATE_START = [
    (0.0, 3001), (0.38, 3001), (0.71, 3001), (1.18, 2970), (1.47, 2856), (1.75, 2752), (2.09, 2619),
    (2.47, 2471), (2.75, 2361), (3.12, 2208), (3.4, 2124), (3.67, 2066), (3.94, 2011), (4.21, 1964),
    (4.5, 1870), (4.81, 1736), (5.19, 1611), (5.47, 1505), (5.8, 1373), (6.25, 1258), (6.58, 1152),
    (6.89, 1063), (7.22, 947), (7.59, 828), (7.9, 741),
]
THRESHOLD = 750.25
