"""Workload test support: the stress users the workload tests create on the suite's MariaDB."""

import subprocess

from workload.target import Target

STRESS_USER, STRESS_PASSWORD = "stresser", "w0rkl0ad!"
STALL_USER = "staller"  # may also take the global read lock (RELOAD), as --stall-every needs


def stall_target(mariadb) -> Target:
    """A stress user that may write the driver's schema and take FLUSH TABLES WITH READ LOCK."""
    mariadb.execute(
        f"CREATE USER IF NOT EXISTS '{STALL_USER}'@'%' IDENTIFIED BY '{STRESS_PASSWORD}'",
        f"GRANT ALL ON steadystate_stress.* TO '{STALL_USER}'@'%'",
        f"GRANT RELOAD ON *.* TO '{STALL_USER}'@'%'",
    )
    return Target(name="test", user=STALL_USER, password=STRESS_PASSWORD, host="127.0.0.1", port=mariadb.port)


def point_select_options(mariadb) -> list[str]:
    """sysbench's options for oltp_point_select as a user that may write only its schema (as the workload tests
    make), its one small table prepared: the options a test's `run` adds its own to."""
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={mariadb.port}",
               f"--mysql-user={STRESS_USER}", f"--mysql-password={STRESS_PASSWORD}",
               "--mysql-db=steadystate_stress", "--tables=1", "--table-size=100"]
    mariadb.execute(f"CREATE USER IF NOT EXISTS '{STRESS_USER}'@'%' IDENTIFIED BY '{STRESS_PASSWORD}'",
                    f"GRANT ALL ON steadystate_stress.* TO '{STRESS_USER}'@'%'",
                    "CREATE DATABASE IF NOT EXISTS steadystate_stress",
                    "DROP TABLE IF EXISTS steadystate_stress.sbtest1")
    subprocess.run(["sysbench", "oltp_point_select", *options, "prepare"], check=True, capture_output=True)
    return options
