"""TPS polls of a load that a heavy writer cut, recorded on the demo server (used by test_level_change_heavy_writer.py).

Made in the audit of 2026-11-27: the demo MariaDB 10.11.19 (TPS = InnoDB's trx commit counters), polled every
5 s, on a 2-core VM shared with other work; `stress local --mode rw --concurrency 4` as the run
"audit7-purgeslow" from 19:53:54.8 UTC, another such load ending 19:54:27, and from about 19:54:55 four sessions
updating 2,000 rows a statement in autocommit (purge slowed to one thread, batches of 1). The run's stability
page judged these polls (59, from the run's first poll judged): each poll's seconds after the first
(19:54:03.931 UTC) and its TPS, rounded to the millisecond and to 0.001 TPS. TPS ran at 671 to 1,134 (two loads)
for 7 polls, 415 to 611 for 4 (one), 339 and 325 (the writer starting), then 48 to 212 for 32 polls and 163 to
333 for the last 14. The page read "Drifting: TPS -35.25 %/min".
"""

OFFSETS_S = (
    0.0, 4.975, 10.011, 14.969, 19.925, 25.004, 30.069, 34.991, 40.076, 45.003, 50.149, 55.01, 60.002, 64.969,
    70.156, 75.039, 80.14, 85.086, 89.932, 94.961, 99.932, 104.917, 109.979, 115.085, 119.951, 125.004, 130.012,
    134.958, 139.971, 145.021, 149.952, 154.998, 160.019, 164.986, 170.028, 174.971, 179.935, 184.989, 190.039,
    194.957, 200.231, 205.02, 210.1, 214.913, 219.919, 224.995, 229.958, 235.001, 239.909, 244.976, 249.98, 254.936,
    259.913, 265.27, 270.054, 274.996, 279.916, 285.056, 290.008
)

TPS = (
    799.006, 871.357, 881.056, 671.037, 953.188, 729.724, 1133.689, 423.202, 610.619, 415.466, 603.77, 338.613,
    325.321, 120.822, 118.951, 48.331, 131.935, 102.911, 211.971, 128.256, 161.135, 169.342, 148.529, 93.224,
    141.213, 121.116, 156.718, 140.518, 150.638, 79.208, 155.749, 114.965, 134.209, 147.574, 172.154, 137.164,
    177.679, 166.634, 139.01, 131.354, 124.573, 79.541, 129.528, 126.325, 144.427, 215.764, 211.322, 267.553,
    231.208, 270.377, 231.661, 332.123, 205.947, 162.591, 178.93, 185.35, 246.545, 202.529, 284.733
)
