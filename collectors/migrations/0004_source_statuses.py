"""Each source's health entry gets its status, read once from what the entries said before statuses.

This is the only place that still reads the error texts: the texts below are those the
collectors wrote before, frozen here.
"""

from django.db import migrations


def status_from_old_entry(state: dict) -> str:
    error = state.get("error") or ""
    if state.get("ok"):
        return "ok"
    if "not polled, cannot connect" in error:
        return "not polled"
    if "not polled" in error:
        return "connection lost"
    if state.get("unavailable"):
        version = "not available on" in error or " or later (server is" in error
        return "unsupported" if version else "off"
    return "failed"


def add_statuses(apps, schema_editor):
    ServerHealth = apps.get_model("collectors", "ServerHealth")
    for health in ServerHealth.objects.exclude(sources={}):
        for state in health.sources.values():
            if isinstance(state, dict) and "status" not in state:
                state["status"] = status_from_old_entry(state)
                state.pop("unavailable", None)
        health.save(update_fields=["sources"])


class Migration(migrations.Migration):
    dependencies = [("collectors", "0003_server_from_registry")]

    operations = [migrations.RunPython(add_statuses, migrations.RunPython.noop)]
