"""Workload test support: the stress user the workload tests create on the suite's MariaDB."""

STRESS_USER, STRESS_PASSWORD = "stresser", "w0rkl0ad!"
