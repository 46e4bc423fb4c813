"""A purge too slow for its load, as polled live on a sandbox MariaDB 10.11 at its defaults (2026-11-28 UTC).

performance_schema OFF, no innodb_monitor_enable (the purge counters off), innodb_purge_threads=1,
innodb_purge_batch_size=10; `sysbench oltp_update_index --tables=1 --table-size=100000 --threads=16` from
02:41:00 (autocommit UPDATEs of an indexed column, ~8,200 rows a second), no transaction held open. Polled every
5 s by `manage.py up` (server `live`), read back with `store.query.within`.

GROWN: (poll time UTC, history_list_length, Handler_update delta since the poll before; None: the first poll).
Handler_delete stayed 0. The history grows ~327,000 / min from 0: purge too slow, nothing holds it.
ONE_SECOND: the oldest transaction as the oldest_trx source recorded it twice (TrxHolder rows): an autocommit
UPDATE read 1 s old (INNODB_TRX's trx_started is in whole seconds), seen by one poll, gone by the next:
(thread, host, started, seen, found gone by).
"""

GROWN = [
    ("02:40:53.576", 0, None), ("02:40:58.399", 0, 0), ("02:41:03.375", 3, 0),
    ("02:41:08.524", 27305, 53804), ("02:41:13.393", 48499, 73354), ("02:41:18.382", 90670, 75293),
    ("02:41:23.892", 127522, 48158), ("02:41:28.564", 158166, 45431), ("02:41:33.451", 204347, 59095),
    ("02:41:38.491", 239476, 49888), ("02:41:43.621", 265621, 34124), ("02:41:48.734", 283262, 36950),
    ("02:41:54.066", 309745, 41142), ("02:41:59.125", 342246, 41454), ("02:42:03.390", 360541, 24902),
    ("02:42:08.447", 384702, 40040), ("02:42:13.419", 401960, 32872), ("02:42:18.567", 413510, 38423),
    ("02:42:23.799", 445240, 44815), ("02:42:28.665", 477044, 49174), ("02:42:33.696", 515610, 46886),
    ("02:42:38.477", 537471, 27583), ("02:42:43.385", 568626, 40646), ("02:42:48.459", 600598, 39604),
    ("02:42:53.384", 643184, 57374), ("02:42:58.450", 680281, 62878),
]

ONE_SECOND = [
    (15, "127.0.0.1:48052", "02:41:32.479802", "02:41:33.479802", "02:41:38.491492"),
    (12, "127.0.0.1:48044", "02:42:47.475180", "02:42:48.475180", "02:42:53.472683"),
]
