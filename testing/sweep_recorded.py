"""A 1/2/4/8-thread sysbench sweep's TPS, as polled on a saturated host: the steps changed the load by design.

`manage.py bench_run sweeplive --sweep sw --levels 1,2,4,8 -- sysbench oltp_read_write --tables=2
--table-size=10000 --threads={threads} --time=25 run` against a private MariaDB 10.11, polled every 2 s, on
2026-11-27 05:15 UTC on the 2-core machine at load average 16-21 (other work running). sysbench's own TPS per
step: 351.6, 351.8, 410.7, 545.0. The stability page over the sweep's range read "Drifting: TPS 34.67 %/min
(95 % interval 16.74 to 52.59)".
"""

# (thread count, start, end) of each step (run), seconds from the first step's start.
STEPS = [(1, 0.0, 25.37), (2, 25.4, 50.73), (4, 50.84, 76.33), (8, 76.35, 101.59)]
INTERVAL = 2.0  # seconds each poll's delta covers (the polls' own were 1.7-2.3 s)
# (seconds from the first step's start, transactions in the poll's INTERVAL), each poll whose interval lay wholly
# in the sweep's range.
POLLS = [
    (3.78, 700), (5.77, 393), (7.70, 556), (9.71, 539), (11.77, 522), (13.76, 323), (15.77, 326),
    (17.80, 406), (20.01, 872), (21.76, 1459), (23.74, 1242), (25.73, 782), (27.73, 797), (29.76, 937),
    (31.93, 1055), (33.88, 673), (35.70, 744), (37.73, 694), (39.73, 1081), (41.74, 671), (43.72, 542),
    (45.69, 462), (47.73, 672), (49.78, 334), (51.76, 316), (53.80, 583), (55.79, 610), (57.79, 957),
    (59.80, 699), (62.01, 864), (63.71, 879), (65.70, 776), (67.70, 706), (69.77, 1078), (71.97, 1138),
    (73.75, 797), (75.74, 797), (77.73, 961), (79.89, 1302), (81.77, 858), (83.77, 1179), (85.83, 1181),
    (87.77, 951), (89.77, 1221), (91.80, 975), (93.72, 1005), (95.76, 1183), (97.77, 933), (99.71, 996),
]
