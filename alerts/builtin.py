"""The rules every installation starts with: purge lag, a server that stops answering, replication."""

from alerts.models import Rule

# key -> fields; scope is every server, recipients come from ALERT_RECIPIENTS
# until someone sets them on the rule.
BUILTIN_RULES = {
    "history-above": dict(
        name="History length above 1,000,000", kind=Rule.THRESHOLD,
        metric="history_list_length", threshold=1_000_000,
    ),
    "history-growth": dict(
        name="History length grows 100,000 in 10 minutes", kind=Rule.GROWTH,
        metric="history_list_length", threshold=100_000, window_minutes=10,
    ),
    "history-rising": dict(
        name="History length rising for 30 minutes", kind=Rule.SUSTAINED,
        metric="history_list_length", threshold=0, window_minutes=30,
    ),
    "unreachable": dict(name="Server unreachable for 3 polls", kind=Rule.UNREACHABLE, threshold=3),
    "source-failing": dict(name="A collector source is failing", kind=Rule.SOURCE_FAILING, threshold=0),
    # Which lag is too much depends on the replica's job: off until someone sets X and enables it.
    "replica-lag": dict(name="Replica lag above 300 s", kind=Rule.REPLICA_LAG, threshold=300, enabled=False),
    "replica-stopped": dict(name="Replication stopped", kind=Rule.REPLICA_STOPPED, threshold=0),
}


def ensure_builtin_rules() -> int:
    """Create the built-in rules that do not exist yet (a deleted one comes back: disable it instead)."""
    existing = set(Rule.objects.exclude(builtin="").values_list("builtin", flat=True))
    missing = [Rule(builtin=key, **fields) for key, fields in BUILTIN_RULES.items() if key not in existing]
    Rule.objects.bulk_create(missing, ignore_conflicts=True)
    return len(missing)
