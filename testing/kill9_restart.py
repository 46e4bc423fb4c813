"""Polls of a write load whose MariaDB was killed with kill -9 and restarted, recorded live (test_stall_then_dip).

Made for the audit of 2026-11-27: a sandbox MariaDB 10.11.19 (testing.mariadb) under one session inserting a row a
statement in autocommit, polled every 5 s by `manage.py collect`; mariadbd killed with SIGKILL 0.26 s after the poll
at 44.862 s, started again 9 s later (crash recovery took 8 s more); the load, its connection lost, slept 35 s before
reconnecting. The polls at 49.822 and 54.822 s could not connect, the one at 59.837 s found the server restarted
(its boot time 54.827 s), the next five counted no insert, the load was back from about 80 s. Per global_status
poll: seconds after the first read, boot time (seconds after it) and Com_insert (each insert a transaction);
None where the poll could not connect. Com_insert stands in for TPS's counter (tps_explicit on that server, which
autocommit statements do not move): the file keeps it as the counter a basis counts, nothing else.
"""

from testing.collect import reencode

POLLS = (
    (0.0, -6.178, 16274), (4.879, -6.178, 39229), (9.831, -6.178, 63864), (14.881, -6.178, 89943),
    (19.988, -6.178, 110593), (24.833, -6.178, 136367), (29.833, -6.178, 163734), (34.833, -6.178, 184733),
    (39.828, -6.178, 203914), (44.862, -6.178, 224989), (49.822, None, None), (54.822, None, None),
    (59.837, 54.827, 0), (64.827, 54.827, 0), (69.828, 54.827, 0), (74.833, 54.842, 0), (79.832, 54.845, 0),
    (84.832, 54.845, 18870), (89.846, 54.845, 39982), (94.834, 54.845, 62523), (99.828, 54.845, 82536),
    (104.846, 54.845, 104401), (109.833, 54.874, 125717), (114.832, 54.864, 146345),
)
PORT = 42159


def collection(t0: float) -> bytes:
    """The polls as a collection file (`manage.py collect`'s format, global_status only), the first read at t0."""
    lines: list[dict] = [{"type": "header", "format": "steadystate-collection", "version": 2,
                          "server": {"address": f"127.0.0.1:{PORT}", "host": "127.0.0.1", "port": PORT, "socket": "",
                                     "user": "steady", "tls": "preferred", "node_exporter_url": "",
                                     "statements_interval": 60},
                          "interval": 5, "started_at": t0 - 0.2}]
    for at, boot, inserts in POLLS:
        if boot is None:
            lines.append({"type": "poll", "at": t0 + at, "failed": [{
                "source": "global_status", "unavailable": False,
                "error": f"127.0.0.1: global_status: not polled, cannot connect (port {PORT}: Connection refused)"}],
                "connect_error": f"127.0.0.1: 127.0.0.1:{PORT}: cannot connect", "readings": []})
            continue
        uptime = round(at - boot)
        lines.append({"type": "poll", "at": t0 + at, "failed": [], "readings": [{
            "source": "global_status", "read_at": t0 + at, "boot": t0 + boot,
            "counters": ["tps_explicit"], "note": "", "reset_markers": ["Uptime"],
            "aliases": {"tps": ["tps_explicit"]},
            "values": {"Uptime": uptime, "tps_explicit": inserts}}]})
    lines.append({"type": "end", "at": t0 + POLLS[-1][0] + 0.1, "polls": len(POLLS)})
    return reencode(lines)
