"""Test connection: can we reach a server, what is it, and may our user read what the collectors need.

Used by the server pages ("Test connection") and `manage.py addserver --check`.
"""

import re
from dataclasses import dataclass, field

import pymysql

from collectors import tls as tls_modes
from collectors import transactions
from collectors.connection import ConnectError, ServerInfo, detect, open_connection
from collectors.http_fetch import FetchError, HttpPool
from collectors.http_poll import fetch
from collectors.pinning import NO_PIN, Pin
from collectors.pool import Target
from collectors.source import SourceError
from collectors.sources import node_exporter
from collectors.sources.replication import privilege as replication_status_privilege
from collectors.sources.replication import statement as replication_status_sql
from collectors.tls import TLS
from collectors.weakened import PFS_SINCE, Weakened, read_weakened

# The account the server matched us to, as 'user'@'host'.
CURRENT_USER_SQL = "SELECT CURRENT_USER()"
# Every grant of that account (and of its default role, listed as a grant).
SHOW_GRANTS_SQL = "SHOW GRANTS FOR CURRENT_USER()"
# Needs PROCESS: fails with 1227 without it, whatever roles or grants say.
PROCESS_PROBE_SQL = "SELECT COUNT(*) FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'"
# Needs SELECT on performance_schema: fails with 1142 without it (ON or OFF alike).
PFS_PROBE_SQL = "SELECT COUNT(*) FROM performance_schema.events_waits_summary_global_by_event_name WHERE 1 = 0"

PROCESS = "PROCESS"
REPLICATION_CLIENT = "REPLICATION CLIENT"
PFS_SELECT = "SELECT ON performance_schema.*"
NEEDED = (PROCESS, REPLICATION_CLIENT, PFS_SELECT)


def needed(info: ServerInfo) -> tuple[str, ...]:
    """The privileges the collectors need on this server's flavor and version: a server older than
    performance_schema (MySQL 5.1, MariaDB 5.1-5.3) has no schema to grant SELECT on."""
    if info.version_tuple < PFS_SINCE.get(info.flavor, (0, 0, 0)):
        return tuple(p for p in NEEDED if p != PFS_SELECT)
    return NEEDED


# Grant names that cover a needed privilege. MariaDB 10.5+ shows
# REPLICATION CLIENT as its new name, BINLOG MONITOR.
GLOBAL_ALIASES = {
    PROCESS: ("PROCESS",),
    REPLICATION_CLIENT: ("REPLICATION CLIENT", "BINLOG MONITOR"),
}


@dataclass
class CheckResult:
    """What "Test connection" found; error is set when we could not connect at all."""

    address: str
    error: str = ""
    info: ServerInfo | None = None
    account: str = ""
    missing: list[str] = field(default_factory=list)
    grant: str = ""
    tls: str = ""  # whether TLS was used, with which certificate, and whether it was verified
    node_exporter: str = ""  # what one read of the host's node_exporter found, when the server has one
    node_exporter_error: str = ""
    proof: Pin = NO_PIN  # the certificate or RSA key this server proved (what a typed password pins)
    pinning: str = ""  # what is pinned, or would be, in a sentence
    weakened: list[Weakened] = field(default_factory=list)  # what the server leaves off, and its cost

    @property
    def tps_definition(self) -> str:
        """How this server's TPS will be counted: the stability page's sentence."""
        return transactions.DEFINITIONS[self.info.tps_basis] if self.info else ""

    @property
    def connected(self) -> bool:
        return not self.error

    @property
    def ok(self) -> bool:
        """Connected, every privilege the collectors need is there, and the node_exporter (if any) answers."""
        return self.connected and not self.missing and not self.node_exporter_error

    @property
    def needed_names(self) -> str:
        """The needed privileges as docs/privileges.md grants them on this server's flavor and version."""
        return ", ".join(spelled(p, self.info) for p in needed(self.info)) if self.info else ", ".join(NEEDED)

    @property
    def missing_names(self) -> str:
        return ", ".join(spelled(p, self.info) for p in self.missing) if self.info else ", ".join(self.missing)

    def lines(self) -> list[str]:
        """The result as plain text lines, for the CLI."""
        if not self.connected or self.info is None:
            return [f"connection FAILED: {self.error}"]
        out = [f"connection OK: {self.info.label} ({self.info.version}) at {self.address} as {self.account}",
               f"TLS: {self.tls}",
               f"pinned: {self.pinning}",
               f"performance_schema: {'ON' if self.info.performance_schema else 'OFF'}"]
        if self.missing:
            out += [f"missing privileges: {self.missing_names}", f"  fix with: {self.grant}"]
        else:
            out.append(f"privileges: all present ({self.needed_names})")
        return out + [self.tps_definition] + self.weakened_lines() + self.node_exporter_lines()

    def weakened_lines(self) -> list[str]:
        if not self.weakened:
            return ["configuration: everything the figures read is on"]
        out = []
        for item in self.weakened:
            out += [f"WEAKENED {item.figure}: {item.setting} {item.state}: {item.lost}", f"  {item.fix}"]
        return out

    def node_exporter_lines(self) -> list[str]:
        if self.node_exporter_error:
            return [f"node_exporter FAILED: {self.node_exporter_error}"]
        return [f"node_exporter OK: {self.node_exporter}"] if self.node_exporter else []


def check_connection(*, host: str = "", port: int = 3306, socket: str = "", user: str, password: str,
                     tls: TLS = tls_modes.DEFAULT, pin: Pin = NO_PIN, trust_new: bool = False) -> CheckResult:
    """Connect with short timeouts and report TLS, flavor, version, performance_schema and missing privileges.

    `pin` and `trust_new` as for collectors.connection.open_connection: a typed password trusts what
    the server proves (result.proof, pinned when saved), the stored one only what is pinned.
    """
    result = CheckResult(address=socket or f"{host}:{port}")
    try:
        conn = open_connection(host=host, port=port, socket=socket, user=user, password=password, tls=tls,
                               pin=pin, trust_new=trust_new)
    except ConnectError as exc:
        result.error = str(exc)
        return result
    try:
        result.tls = tls_modes.describe(conn._sock, tls.mode)
        result.proof = conn.guard.proof
        result.pinning = pinning_note(result.proof, pin, trust_new, conn.guard.proven)
        result.info = detect(conn)
        result.account = current_account(conn)
        result.missing = missing_privileges(conn, result.info)
        result.grant = grant_statement(result.missing, result.account, result.info)
        result.weakened = read_weakened(conn, result.info)
    except pymysql.MySQLError as exc:
        result.error = f"{result.address}: connected, but a check query failed: {exc.args[-1]}"
    finally:
        conn.close()
    return result


def check_server(server) -> CheckResult:
    """Test a servers.models.Server with its stored credentials (sent only to what it has pinned)."""
    result = check_connection(host=server.host, port=server.port, socket=server.socket,
                              user=server.user, password=server.password, tls=TLS.of(server), pin=Pin.of(server))
    return check_node_exporter(result, server.node_exporter_url)


def pinning_note(proof: Pin, pin: Pin, trust_new: bool, proven: bool) -> str:
    """What is pinned (or will be, once saved with the typed password), for the test's result."""
    if proven and not proof:
        return "nothing needed: the certificate was verified against a CA, or the server is on a unix socket"
    if trust_new:
        if not proof:
            return ("nothing: this server proved no certificate or key (its password scramble does not reveal "
                    "the password); an RSA or clear-text exchange will be refused until one is pinned")
        return f"{proof.describe()}: pinned when saved with this password"
    if pin:
        return f"{pin.describe()}"
    return ("nothing: type the password (Edit) and test to pin " + proof.describe()) if proof else (
        "nothing: this server proved no certificate or key")


def check_node_exporter(result: CheckResult, url: str) -> CheckResult:
    """One read of the host's node_exporter, as the collector reads it, told in a line."""
    if not url:
        return result
    pool = HttpPool()  # a fresh connection: the test says whether a new worker would get through
    try:
        reading = node_exporter.collect(fetch(Target(0, "test", "", 0, "", "", "", node_exporter_url=url),
                                              node_exporter.endpoints_of(url), pool))
    except (FetchError, SourceError) as exc:
        result.node_exporter_error = str(exc)
        return result
    finally:
        pool.close_all()
    names = reading.values
    disks = sum(1 for n in names if n.startswith("host.disk.reads:"))
    nets = sum(1 for n in names if n.startswith("host.net.rx_packets:"))
    result.node_exporter = (f"{url}: {names['host.cpus']} CPUs, {disks} disks and {nets} network interfaces "
                            f"in use" + (f"; {reading.note}" if reading.note else ""))
    return result


def current_account(conn: pymysql.Connection) -> str:
    with conn.cursor() as cur:
        cur.execute(CURRENT_USER_SQL)
        user, _, host = cur.fetchone()[0].rpartition("@")
    return f"'{user}'@'{host}'"


def missing_privileges(conn: pymysql.Connection, info: ServerInfo) -> list[str]:
    granted = granted_privileges(conn)
    probes = {PROCESS: PROCESS_PROBE_SQL, PFS_SELECT: PFS_PROBE_SQL}
    missing = []
    for priv in needed(info):
        # A role can grant what SHOW GRANTS does not list; the probe settles it.
        if priv not in granted and not (priv in probes and probe(conn, probes[priv])):
            missing.append(priv)
    # MariaDB 10.5.2+ reads replica status with REPLICATION SLAVE ADMIN, then SLAVE MONITOR, not BINLOG MONITOR:
    # asking the server itself is the one check that holds on every version.
    if REPLICATION_CLIENT not in missing and not probe(conn, replication_status_sql(info)):
        missing.append(REPLICATION_CLIENT)
    return [p for p in needed(info) if p in missing]


def granted_privileges(conn: pymysql.Connection) -> set[str]:
    with conn.cursor() as cur:
        cur.execute(SHOW_GRANTS_SQL)
        grants = [row[0] for row in cur.fetchall()]
    return privileges_in_grants(grants)


GRANT_RE = re.compile(r"^GRANT (.+?) ON (\S+) TO ", re.IGNORECASE)


def privileges_in_grants(grants: list[str]) -> set[str]:
    """Which of the needed privileges these SHOW GRANTS lines give."""
    found = set()
    for line in grants:
        match = GRANT_RE.match(line)
        if not match:
            continue
        privs = {p.strip().upper() for p in match.group(1).split(",")}
        target = match.group(2).replace("`", "").lower()
        everything = "ALL PRIVILEGES" in privs
        if target == "*.*":
            found |= {need for need, names in GLOBAL_ALIASES.items() if everything or privs & set(names)}
            if everything or "SELECT" in privs:
                found.add(PFS_SELECT)
        elif target == "performance_schema.*" and (everything or "SELECT" in privs):
            found.add(PFS_SELECT)
    return found


def probe(conn: pymysql.Connection, sql: str) -> bool:
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            cur.fetchall()
        return True
    except pymysql.MySQLError:
        return False


def grant_statement(missing: list[str], account: str, info: ServerInfo) -> str:
    """The exact GRANT(s) that add the missing privileges, spelled for this flavor and version."""
    if not missing:
        return ""
    global_privs = [spelled(p, info) for p in missing if p in GLOBAL_ALIASES]
    statements = []
    if global_privs:
        statements.append(f"GRANT {', '.join(global_privs)} ON *.* TO {account};")
    if PFS_SELECT in missing:
        statements.append(f"GRANT SELECT ON performance_schema.* TO {account};")
    return " ".join(statements)


def spelled(privilege: str, info: ServerInfo) -> str:
    """A needed privilege as docs/privileges.md grants it on this flavor and version."""
    if privilege == REPLICATION_CLIENT and info.flavor == "mariadb" and info.version_tuple >= (10, 5, 2):
        # The 10.5+ name, and the privilege replica status needs there: REPLICATION SLAVE ADMIN on 10.5.2-10.5.8,
        # SLAVE MONITOR from 10.5.9 (BINLOG MONITOR alone reads neither).
        return f"BINLOG MONITOR, {replication_status_privilege(info)}"
    return privilege
