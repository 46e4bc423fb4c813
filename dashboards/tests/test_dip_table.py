"""The stability page's table of dips: its times and its statements links, made without a reverse() or a date
filter per dip."""

from datetime import UTC, datetime, timedelta

from django.template import Context, Template
from django.test import override_settings

from dashboards.links import dips_statements, link

AT = datetime(2026, 3, 4, 5, 6, 7, 890, tzinfo=UTC)


def rendered(text: str, **context) -> str:
    return Template("{% load dash_fmt %}" + text).render(Context(context))


def test_a_dips_times_read_as_the_date_filter_wrote_them():
    assert rendered("{{ t|second_time }} {{ t|second_time:False }}", t=AT) == "2026-03-04 05:06:07 05:06:07"
    with override_settings(TIME_ZONE="Europe/Paris"):  # in the server's time zone, as |date was
        assert rendered("{{ t|second_time }}|{{ t|date:'Y-m-d H:i:s' }}", t=AT) == (
            "2026-03-04 06:06:07|2026-03-04 06:06:07")
    assert rendered("{{ t|second_time }}", t=None) == ""


def test_each_dip_links_its_statements_over_it_and_one_interval_after():
    dips = [(AT, AT + timedelta(minutes=3)), (AT + timedelta(hours=2), AT + timedelta(hours=2, seconds=50))]
    got = dips_statements(7, dips, 60)
    assert got[0] == "/servers/7/statements/?from=2026-03-04T05%3A06%3A07.000890&to=2026-03-04T05%3A10%3A07.000890"
    assert got[1] == "/servers/7/statements/?from=2026-03-04T07%3A06%3A07.000890&to=2026-03-04T07%3A07%3A57.000890"
    assert got[0].startswith(link("dashboards:statements", 7) + "?")
    assert dips_statements(7, [], 60) == []
