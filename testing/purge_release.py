"""History list length around a released read view, as recorded on the demo server.

docs/walkthrough-catch-purge-lag.md step 2 (`stress local --mode rw --concurrency 4 --think-ms 2
--duration 150 --hold-trx 100`, read view held 07:42:13-07:43:53 UTC), 5 s polls from the CSV export
(rows 07:43:50 to 07:44:35): the held read view's last two polls, its release, and the 8 polls after it.
"""

RELEASE = [85_475, 90_047, 464, 452, 380, 296, 257, 348, 362, 296]
# Then "0-90 from 07:44:50 on" and 0 for two minutes: these values are made up inside what was recorded.
TO_ZERO = [90, 62, 41, 17, 0] + [0] * 22
