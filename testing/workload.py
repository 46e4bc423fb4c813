"""Workload test support: the stress users the workload tests create on the suite's MariaDB."""

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
