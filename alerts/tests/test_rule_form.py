"""Bad rule input is refused with a message that says what to change."""

import html

import pytest
from django.core.exceptions import ValidationError

from alerts.forms import RuleForm
from alerts.models import Rule
from testing.servers import make_server

pytestmark = pytest.mark.django_db

GOOD = {"name": "History grows", "kind": "growth", "metric": "history_list_length", "threshold": "5000",
        "window_minutes": "10", "recipients": "dba@example.com, oncall@example.com",
        "cooldown_minutes": "30", "renotify_minutes": "0", "enabled": "on"}


def errors(**changes) -> dict:
    form = RuleForm({**GOOD, **changes})
    assert not form.is_valid()
    return form.errors


def test_it_accepts_a_good_rule():
    form = RuleForm(GOOD)
    assert form.is_valid(), form.errors
    rule = form.save()
    assert rule.recipients == ["dba@example.com", "oncall@example.com"]
    assert rule.condition_text == "history_list_length grows more than 5,000 within 10 min"


def test_it_keeps_each_recipient_once():
    pasted = "dba@example.com, oncall@example.com\nDBA@Example.com; dba@example.com " + "oncall@example.com " * 2000
    form = RuleForm({**GOOD, "recipients": pasted})
    assert form.is_valid(), form.errors
    assert form.save().recipients == ["dba@example.com", "oncall@example.com"]


def test_it_refuses_a_negative_window():
    assert errors(window_minutes="-5")["window_minutes"] == [
        "The window must be a positive number of minutes, not -5."]


def test_it_refuses_a_window_shorter_than_any_two_polls():
    assert errors(window_minutes="1e-9")["window_minutes"] == [
        "The window must be at least 1 s (0.0167 minutes), not 1e-09 minutes: a growth needs two polls, at least 1 s"
        " apart."]


def test_it_refuses_a_growth_rule_without_window():
    assert "Growth rules need a window" in errors(window_minutes="")["window_minutes"][0]


def test_it_refuses_an_unknown_metric():
    message = errors(metric="history_lenght")["metric"][0]
    assert message.startswith("Unknown metric 'history_lenght': use a name from docs/metrics.md")


def test_it_refuses_a_pattern():
    assert "not a pattern" in errors(metric="wait.time_ps:*")["metric"][0]


def test_it_accepts_documented_metric_families():
    for metric in ("wait.time_ps:wait/synch/mutex/innodb/trx_sys_mutex", "innodb_metrics:purge_del_mark_records",
                   "Threads_running"):
        form = RuleForm({**GOOD, "metric": metric})
        assert form.is_valid(), (metric, form.errors)


def test_it_refuses_a_malformed_address():
    message = errors(recipients="dba@example.com, not-an-address@")["recipients"][0]
    assert message.startswith("Not a valid e-mail address: 'not-an-address@'. Write addresses like")


def test_it_refuses_a_negative_cooldown():
    assert "cannot be negative" in errors(cooldown_minutes="-1")["cooldown_minutes"][0]


@pytest.mark.parametrize("field, label, zero", [
    ("cooldown_minutes", "The cooldown", "none"), ("renotify_minutes", "The re-notify interval", "never")])
@pytest.mark.parametrize("value", ["1e-320", "0.01"])
def test_it_refuses_a_span_shorter_than_a_second_but_takes_0(field, label, zero, value):
    """1e-320 minutes was saved: a timedelta of 0, no cooldown at all (a reminder at every evaluation)."""
    # 1 s is 1/60 = 0.0167 minutes; 0.01 minutes is 0.6 s
    assert errors(**{field: value})[field] == [
        f"{label} is 0 ({zero}) or at least 1 s (0.0167 minutes), not {value} minutes."]
    assert RuleForm({**GOOD, field: "0"}).is_valid() and RuleForm({**GOOD, field: "0.0167"}).is_valid()


def test_it_refuses_server_and_tag_together(server):
    assert errors(server=str(server.id), tag="prod")["tag"] == ["Choose one server or one tag, not both."]


def test_it_wants_whole_polls_for_unreachable():
    assert "whole number of polls" in errors(kind="unreachable", threshold="1.5")["threshold"][0]
    form = RuleForm({**GOOD, "kind": "unreachable", "threshold": "3", "metric": "whatever"})
    assert form.is_valid(), form.errors
    assert form.save().metric == ""  # a metric makes no sense for this kind


@pytest.mark.parametrize("value", ["1e23", "604801", "0"])
def test_it_wants_at_most_a_week_of_polls_for_unreachable(value):
    """X=1e23 (a whole number to Python) was saved: consecutive_failures never reaches it, the rule never fired."""
    # a week of polls every second: 7 x 24 x 3600 = 604,800
    assert errors(kind="unreachable", threshold=value)["threshold"] == [
        "For an unreachable rule, X is a whole number of polls from 1 to 604,800 (a week of polls every second), "
        "e.g. 3."]
    assert RuleForm({**GOOD, "kind": "unreachable", "threshold": "604800"}).is_valid()


@pytest.mark.parametrize("value", ["1e23", "2592001", "-1"])
def test_it_wants_at_most_30_days_of_lag(value):
    # 30 days: 30 x 86,400 = 2,592,000 s
    assert errors(kind="replica_lag", threshold=value, window_minutes="")["threshold"] == [
        "For a replica lag rule, X is a number of seconds from 0 to 2,592,000 (30 days), e.g. 300."]
    assert RuleForm({**GOOD, "kind": "replica_lag", "threshold": "2592000", "window_minutes": ""}).is_valid()


def test_it_refuses_a_source_no_poll_reports():
    """'global_statu' was saved: no health row ever holds it, so the rule watched nothing and never fired."""
    source_rule = {**GOOD, "kind": "source_failing", "metric": "", "window_minutes": ""}
    message = errors(**{**source_rule, "source": "global_statu"})["source"][0]
    assert message.startswith("Unknown source 'global_statu': leave it empty for any source, or name one of: "
                              "global_status, pfs_waits, ")
    for source in ("global_status", "node_exporter", ""):
        form = RuleForm({**source_rule, "source": source})
        assert form.is_valid(), form.errors


def test_it_shows_the_message_on_the_page(admin_client):
    response = admin_client.post("/alerts/rules/new/", {**GOOD, "window_minutes": "-2"})
    assert response.status_code == 200
    assert "The window must be a positive number of minutes, not -2." in response.content.decode()
    assert not Rule.objects.filter(name="History grows").exists()


def test_a_replica_lag_rule_wants_seconds_and_no_metric():
    assert "X is a number of seconds" in errors(kind="replica_lag", threshold="-1")["threshold"][0]
    form = RuleForm({**GOOD, "kind": "replica_lag", "threshold": "120", "window_minutes": ""})
    assert form.is_valid(), form.errors
    rule = form.save()
    assert (rule.metric, rule.condition_text) == ("", "replica lag above 120 s")


def test_a_replication_stopped_rule_needs_nothing_more():
    form = RuleForm({**GOOD, "kind": "replica_stopped", "metric": "", "window_minutes": ""})
    assert form.is_valid(), form.errors
    assert form.save().condition_text == "replication I/O or SQL thread stopped"


@pytest.mark.parametrize("metric", ["host.cpu.busy_pct", "host.cpu.iowait_pct:cpu3", "host.disk.await_ms:nvme0n1",
                                    "host.net.rx_errors:eth0", "host.load1", "host.mem.used_bytes"])
def test_it_accepts_host_metrics_before_any_server_reported_them(metric):
    form = RuleForm({**GOOD, "kind": "threshold", "metric": metric})
    assert form.is_valid(), form.errors


def test_it_refuses_a_host_metric_that_does_not_exist():
    assert errors(metric="host.cpu.busy")["metric"][0].startswith("Unknown metric 'host.cpu.busy'")


@pytest.mark.parametrize("field", ["window_minutes", "cooldown_minutes", "renotify_minutes"])
@pytest.mark.parametrize("value", ["1e300", "99999999999", "10081"])
def test_it_refuses_spans_longer_than_a_week(field, value):
    """1e300 minutes overflowed timedelta in every evaluation of the rule, which then never fired."""
    assert "at most a week (10080 minutes)" in errors(**{field: value})[field][0]


def test_a_week_is_accepted():
    assert RuleForm({**GOOD, "window_minutes": "10080", "cooldown_minutes": "10080"}).is_valid()


def test_the_admin_checks_rules_as_the_alerts_page_does(admin_client):
    """The admin saved a growth rule of W = -5 (growth always 0) and a pattern metric: rules that never fire."""
    data = {**GOOD, "window_minutes": "-5", "metric": "history_*"}
    response = admin_client.post("/admin/alerts/rule/add/", data)
    assert response.status_code == 200  # the form again, with its errors
    body = response.content.decode()
    assert "The window must be a positive number of minutes" in body and "not a pattern" in body
    assert not Rule.objects.filter(name=GOOD["name"]).exists()


def test_the_admin_refuses_an_unreachable_rule_that_could_never_fire(admin_client):
    response = admin_client.post("/admin/alerts/rule/add/", {**GOOD, "kind": "unreachable", "threshold": "1e23",
                                                            "cooldown_minutes": "1e-320"})
    assert response.status_code == 200
    body = html.unescape(response.content.decode())
    assert "X is a whole number of polls from 1 to 604,800" in body and "at least 1 s (0.0167 minutes)" in body
    assert not Rule.objects.filter(name=GOOD["name"]).exists()


@pytest.mark.parametrize("port", ["99999", "65536", "0"])
def test_it_refuses_a_webhook_port_outside_1_to_65535(port):
    assert errors(webhook_url=f"https://hooks.example.com:{port}/x")["webhook_url"] == [
        f"port {port} is not a TCP port: give one from 1 to 65535"]


@pytest.mark.parametrize("url", ["https://hooks.example.com:65535/x", "http://[::1]:1/x", "https://hooks.example.com/x"])
def test_it_accepts_a_webhook_port_from_1_to_65535(url):
    form = RuleForm({**GOOD, "webhook_url": url})
    assert form.is_valid(), form.errors


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://hooks.example.com/x", "https://x:99999/"])
def test_it_says_a_webhook_url_is_not_one_once(url):
    """Seen: "Enter a valid URL. Enter a valid URL." (URLField's validator and ours both ran)."""
    expected = ["Enter a valid URL."] + (["port 99999 is not a TCP port: give one from 1 to 65535"]
                                         if "99999" in url else [])
    assert errors(webhook_url=url)["webhook_url"] == expected


def test_it_refuses_a_history_length_threshold_at_or_below_0_as_the_purge_page_does(admin_client):
    """X = -5 on history_list_length was saved, fired at once ("above -5") and became the purge page's
    default threshold, where threshold=-5 is refused. The form, the model and the admin now refuse it alike."""
    said = "X=-5 must be a positive history length: history_list_length is never below 0 (e.g. 100000)."
    assert errors(kind="threshold", threshold="-5")["threshold"] == [said]
    assert errors(kind="threshold", threshold="0")["threshold"][0].startswith("X=0 must be a positive history")
    assert RuleForm({**GOOD, "kind": "threshold", "threshold": "5"}).is_valid()
    with pytest.raises(ValidationError) as refused:
        Rule(name="h", kind="threshold", metric="history_list_length", threshold=-5).full_clean()
    assert refused.value.message_dict["threshold"] == [said]
    post = {**GOOD, "kind": "threshold", "threshold": "-5", "server": "", "tag": "", "webhook_url": ""}
    answer = admin_client.post("/admin/alerts/rule/add/", post)
    assert answer.status_code == 200 and said in html.unescape(answer.content.decode())
    assert not Rule.objects.filter(threshold=-5).exists()


def test_a_negative_history_threshold_saved_before_is_no_purge_page_default(admin_client):
    server = make_server()
    Rule.objects.create(name="old", kind="threshold", metric="history_list_length", threshold=-5)
    body = admin_client.get(f"/servers/{server.pk}/purge/?range=15m").content.decode()
    assert "above -5" not in body and 'value="-5"' not in body


@pytest.mark.parametrize(("url", "why"), [
    ("http://169.254.169.254/latest", "169.254.169.254 is link-local (where cloud metadata services answer)"),
    ("http://[fe80::1]/x", "fe80::1 is link-local (where cloud metadata services answer)"),
    ("http://[::ffff:169.254.169.254]/x", "169.254.169.254 is link-local (where cloud metadata services answer)"),
    ("http://0.0.0.0:8080/x", "0.0.0.0 is an unspecified address"),
    ("http://224.0.0.1/x", "224.0.0.1 is a multicast address"),
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata service"),
    ("http://[fd00:ec2::254]/latest", "fd00:ec2::254 is a cloud metadata service"),
    # IPv4 inside IPv6: NAT64's prefix, 6to4 and IPv4-compatible forms reach the same address through a gateway
    ("http://[64:ff9b::a9fe:a9fe]/x", "169.254.169.254 is link-local (where cloud metadata services answer)"),
    ("http://[2002:a9fe:a9fe::1]/x", "169.254.169.254 is link-local (where cloud metadata services answer)"),
    ("http://[::a9fe:a9fe]/x", "169.254.169.254 is link-local (where cloud metadata services answer)"),
])
def test_it_refuses_a_webhook_to_metadata_link_local_and_such(url, why):
    assert errors(webhook_url=url)["webhook_url"] == [
        f"webhook refused: {why}. Give the address of a receiver on your network or the internet."]


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://10.1.2.3/hook", "http://localhost:9/hook",
                                 "https://[fd12::1]/hook"])
def test_it_accepts_a_webhook_to_a_private_or_loopback_relay(url):
    form = RuleForm({**GOOD, "webhook_url": url})
    assert form.is_valid(), form.errors


def test_a_setting_refuses_private_networks_too(settings):
    settings.WEBHOOK_PRIVATE_NETWORKS = False
    assert errors(webhook_url="http://localhost:9/hook")["webhook_url"][0].startswith(
        "webhook refused: 127.0.0.1 is a private or loopback address")
    assert "webhook_url" in errors(webhook_url="http://10.1.2.3/hook")


@pytest.mark.parametrize(("kind", "metric", "x", "said"), [
    ("threshold", "tps", "-1", "X=-1 must be 0 or more: tps (a per-second rate) is never below 0, so every reading "
                               "is above it."),
    ("threshold", "wait.time_ps:wait/io/file/innodb/innodb_data_file", "-0.5",
     "X=-0.5 must be 0 or more: wait.time_ps:wait/io/file/innodb/innodb_data_file (a per-second rate) is never "
     "below 0, so every reading is above it."),
    ("threshold", "Threads_running", "-3", "X=-3 must be 0 or more: Threads_running (in threads) is never below 0, "
                                           "so every reading is above it."),
    ("threshold", "host.cpu.busy_pct", "-10", "X=-10 must be 0 or more: host.cpu.busy_pct (in %) is never below 0, "
                                              "so every reading is above it."),
    ("growth", "qps", "-100", "X=-100 must be 0 or more: qps is a counter, whose growth is never below 0."),
    ("sustained", "Threads_running", "-1", "X=-1 must be 0 or more: it is the minimum rise (0 = any), and a flat "
                                           "metric rises by 0."),
])
def test_it_refuses_an_x_every_reading_is_above(kind, metric, x, said):
    """Audit 4: a threshold rule on tps with X = -1 fired at once, on every server ("tps = 0 (above -1)"), as
    history_list_length's did; so did a growth of a counter (never below 0) and a sustained rise above -1."""
    assert errors(kind=kind, metric=metric, threshold=x)["threshold"] == [said]
    with pytest.raises(ValidationError) as refused:
        Rule(name="r", kind=kind, metric=metric, threshold=float(x), window_minutes=10).full_clean()
    assert refused.value.message_dict["threshold"] == [said]


@pytest.mark.parametrize(("kind", "metric", "x"), [
    ("threshold", "tps", "0"),  # above 0: any transaction at all
    ("threshold", "var:innodb_max_purge_lag", "-1"),  # a server's own value may be anything
    ("threshold", "innodb_metrics:trx_active_transactions", "-1"),
    ("growth", "Threads_running", "-5"),  # a gauge's growth may be below 0
    ("sustained", "Threads_running", "0"),
])
def test_it_keeps_an_x_some_reading_may_be_at_or_below(kind, metric, x):
    form = RuleForm({**GOOD, "kind": kind, "metric": metric, "threshold": x})
    assert form.is_valid(), form.errors
