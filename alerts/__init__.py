"""Alert rules over the store, their events, and the e-mails they send."""


def firing_for_servers(server_ids: list[int]) -> dict[int, list[str]]:
    """server id -> names of the rules firing on it. See alerts.status."""
    from alerts.status import firing_for_servers as firing  # models load after apps are ready

    return firing(server_ids)
