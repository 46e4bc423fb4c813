"""The Scalability page reads the host CPU before the law and the waits: a sweep whose host was saturated from one
thread on has a CPU knee, not contention. Each level's busy share is node_exporter's busy CPU-seconds inside its
window over (the seconds they cover x the host's CPUs), written here per level and expected by hand."""

import csv
import io
import re

import pytest

from servers.models import Server
from testing.dashboards import RECENT_T0, make_server
from testing.scalability import HOST_CPUS, page, write_sweep

pytestmark = pytest.mark.django_db
# The audit's sweep (sysbench at 1, 2, 4 threads on a 2-core host): each step up gained 29 %, then 12 %, of one
# thread's TPS per added thread (inside means base + 40: 588.8, 759.6, 888.4), so the knee is at 1 thread.
AUDIT_TPS = {1: 548.8, 2: 719.6, 4: 848.4}
AUDIT_BUSY = {1: 99.3, 2: 99.6, 4: 99.97}
BASELINE = {1: 1000, 2: 2000, 4: 2500}  # inside means 1040, 2040, 2540: gains 96 %, 24 %: knee at 2
LONGER = {1: 1000, 2: 2000, 4: 2500, 8: 2600}  # knee at 2 too
EXPORTER = "http://db1.example:9100/metrics"


def text(response) -> str:
    """The page's words, tags removed and spaces joined."""
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def server(name: str, host: str = "127.0.0.1", exporter: str = EXPORTER) -> Server:
    made = make_server(name)
    Server.objects.filter(pk=made.pk).update(host=host, node_exporter_url=exporter)
    return Server.objects.get(pk=made.pk)


def csv_rows(client, sweep: str) -> list[dict]:
    response = client.get("/export/scalability.csv", {"sweep": sweep})
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_a_host_saturated_from_one_thread_on_is_read_first_as_a_cpu_knee(client, admin_user):
    write_sweep(server("lab"), "audit sb", "", RECENT_T0, AUDIT_TPS, busy_pct=AUDIT_BUSY)
    words = text(page(client, admin_user, sweep="audit sb"))
    assert "knee at 1 thread (588.8 TPS), the host CPU saturated from 1 thread on" in words
    verdict = ("Host CPU saturated (99.3-100.0 % busy of 2 CPUs) from 1 thread on: the knee is the CPU's, not "
               "contention. The fitted σ below is what saturation looks like")
    assert verdict in words
    assert "lab is reached on this machine (socket or loopback): a load started here" in words
    law = "Scalability law (secondary: the host CPU was saturated, so σ here is threads queueing for a core"
    assert words.index(verdict) < words.index(law)
    assert "Secondary (the host CPU was saturated: threads waiting for a core inside these calls" in words
    assert "99.3 % of 2" in words and "99.6 % of 2" in words and "100.0 % of 2" in words


def test_the_csv_gives_each_level_its_busy_share_and_cpus(client, admin_user):
    write_sweep(server("lab"), "audit sb", "", RECENT_T0, AUDIT_TPS, busy_pct=AUDIT_BUSY)
    client.force_login(admin_user)
    rows = csv_rows(client, "audit sb")
    # polls 2..6 inside each window, each pct/100 x 2 CPUs x 10 s busy: their sum / 50 s / 2 CPUs
    assert [float(r["host CPU busy (% of all CPUs)"]) for r in rows] == pytest.approx([99.3, 99.6, 99.97])
    assert [float(r["host CPUs"]) for r in rows] == [HOST_CPUS] * 3


def test_a_host_that_never_filled_says_the_knee_is_not_the_cpus(client, admin_user):
    write_sweep(server("lab", host="db1.example"), "base", "", RECENT_T0, BASELINE, busy_pct={1: 30, 2: 60, 4: 75})
    words = text(page(client, admin_user, sweep="base"))
    assert ("Host CPU not saturated: at most 75.0 % busy of 2 CPUs (at 4 threads): the knee is not the CPU's"
            in words)
    assert "it includes the load generator's CPU if that runs on the database host" in words
    assert "Secondary" not in words and "Host CPU saturated" not in words


def test_a_cpu_full_at_the_step_past_the_knee_is_the_knees_cause(client, admin_user):
    write_sweep(server("lab"), "base", "", RECENT_T0, BASELINE, busy_pct={1: 50, 2: 85, 4: 99})
    words = text(page(client, admin_user, sweep="base"))
    assert "(99.0 % busy of 2 CPUs) from 4 threads on: the knee is the CPU's, not contention" in words


def test_a_cpu_that_fills_only_further_up_leaves_the_knee_to_the_law(client, admin_user):
    write_sweep(server("lab"), "long", "", RECENT_T0, LONGER, busy_pct={1: 40, 2: 70, 4: 80, 8: 96})
    words = text(page(client, admin_user, sweep="long"))
    assert ("Host CPU saturated (96.0 % busy of 2 CPUs) from 8 threads on, past the knee at 2 (70.0 % busy): "
            "the knee is not the CPU's") in words
    assert "Secondary" not in words


def test_a_level_below_saturation_breaks_the_run_of_saturated_levels(client, admin_user):
    write_sweep(server("lab"), "long", "", RECENT_T0, LONGER, busy_pct={1: 95, 2: 70, 4: 92, 8: 96})
    words = text(page(client, admin_user, sweep="long"))  # 4 and 8 saturated, 2 not: from 4 on, the step past
    assert "(92.0-96.0 % busy of 2 CPUs) from 4 threads on: the knee is the CPU's" in words


def test_without_node_exporter_the_page_says_the_cpu_was_not_checked_and_how_to_add_it(client, admin_user):
    lab = server("lab", exporter="")
    write_sweep(lab, "plain", "", RECENT_T0, BASELINE)
    response = page(client, admin_user, sweep="plain")
    words = text(response)
    assert "Host CPU not checked: lab has no node_exporter, so a knee from a saturated CPU cannot be told" in words
    assert f'href="/servers/{lab.pk}/edit/">node_exporter URL</a> field' in response.content.decode()
    assert [r["host CPU busy (% of all CPUs)"] for r in csv_rows(client, "plain")] == ["", "", ""]


def test_a_node_exporter_without_samples_in_the_windows_is_said(client, admin_user):
    write_sweep(server("lab"), "plain", "", RECENT_T0, BASELINE)
    words = text(page(client, admin_user, sweep="plain"))
    assert "Host CPU not checked: no node_exporter samples (with the host's CPU count) inside these levels'" in words


def test_a_host_busy_from_one_thread_on_while_the_sweep_still_scales_is_not_called_full(client, admin_user):
    """Seen in the audit on a shared host: busy from 1 thread on, yet each step up gained over 70 % of one
    thread's TPS per added thread. Inside means (base + 40) 240, 412, 756: gains 72 % and 72 % of 240 per thread,
    so no knee; the busy share held other work than the sweep's, and more threads did find cores."""
    write_sweep(server("shared"), "busy", "", RECENT_T0, {1: 200, 2: 372, 4: 716},
                busy_pct={1: 95.0, 2: 97.0, 4: 99.0})
    words = text(page(client, admin_user, sweep="busy"))
    assert ("from 1 thread on, yet every step up still gained: the busy share holds other work on the host than "
            "this sweep's, which found cores anyway") in words
    assert "more threads will find no free core" not in words


def test_a_saturated_sweep_of_two_levels_points_to_no_fit_it_does_not_have(client, admin_user):
    """Seen in the audit: sysbench at 1 and 2 threads on a saturated 2-core host (54.5 and 53.6 TPS) read "The
    fitted σ below is what saturation looks like" above "No scalability law fitted: it needs TPS at 3 levels or
    more". Inside means (base + 40) 588.8 and 759.6: the step to 2 gained 29 % of one thread's TPS, knee at 1."""
    write_sweep(server("lab"), "two", "", RECENT_T0, {1: 548.8, 2: 719.6}, busy_pct={1: 99.3, 2: 99.6})
    words = text(page(client, admin_user, sweep="two"))
    assert ("Host CPU saturated (99.3-99.6 % busy of 2 CPUs) from 1 thread on: the knee is the CPU's, not "
            "contention. The waits that grow are threads waiting for a core inside their calls") in words
    assert "No scalability law fitted: it needs TPS at 3 levels or more" in words
    assert "fitted σ" not in words
