"""Alert webhooks: a firing or resolved event POSTed as JSON, signed with the rule's secret.

The body carries a Slack-compatible `text` beside the figures, so one URL can be a Slack
incoming webhook or a receiver of our own. With a secret, X-SteadyState-Signature is
`sha256=` + HMAC-SHA256(secret, timestamp + "." + body), the timestamp sent alongside
so a receiver can refuse replays (docs/alerts.md).
"""

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request

from django.conf import settings

from alerts.emails import alert_context
from alerts.models import Notification
from alerts.webhook_targets import OPENER, RefusedTarget, url_refusal

SIGNATURE_HEADER = "X-SteadyState-Signature"
TIMESTAMP_HEADER = "X-SteadyState-Timestamp"
# Worth another try: the receiver may be back later. Any other 4xx will answer the same again.
RETRY_STATUSES = {408, 425, 429}


class WebhookError(Exception):
    def __init__(self, message: str, permanent: bool):
        super().__init__(message)
        self.permanent = permanent


def payload(n: Notification) -> dict:
    c = alert_context(n)
    state = "resolved" if c["resolved"] else "firing"
    rate = "/s" if c["per_second"] else ""
    edited = "; resolved: the rule was edited" if c["resolved"] and c["rule_edited"] else ""
    text = (f"[{state.upper()}] {c['rule'].name} on {c['server'].name}: {c['condition']}{edited}; "
            f"{resolved_text(c, rate) if c['resolved'] else firing_text(c, rate)} <{c['event_url']}>")
    return {
        "event": state, "rule": c["rule"].name, "condition": c["condition"], "server": c["server"].name,
        "rule_edited": c["rule_edited"], "condition_now": c["condition_now"],
        "since": c["since"], "at": c["at"], "value": n.context.get("value"), "peak": n.context.get("peak"),
        "growth": n.context.get("growth"), "growth_span": c["growth_span"], "per_second": c["per_second"],
        "detail": c["detail"], "url": c["event_url"], "page": c["page_label"], "page_url": c["page_url"], "text": text,
        "data_stopped": c["data_stopped"],
    }


def firing_text(c: dict, rate: str) -> str:
    return f"value {c['value']}{rate} since {c['since']}"


def resolved_text(c: dict, rate: str) -> str:
    """When it ended, from the data, and the value the resolution read (not a value held since the start)."""
    ended = f"data stopped after {c['at']} (its last poll)" if c["data_stopped"] else f"cleared at {c['at']}"
    return f"{ended}, held since {c['since']} ({c['duration']}); value {c['value']}{rate} when resolved"


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def request(n: Notification, secret: str) -> urllib.request.Request:
    body = json.dumps(payload(n)).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "SteadyState"}
    if secret:
        timestamp = str(int(time.time()))
        headers[TIMESTAMP_HEADER] = timestamp
        headers[SIGNATURE_HEADER] = signature(secret, timestamp, body)
    return urllib.request.Request(n.url, data=body, headers=headers, method="POST")


def post(n: Notification) -> None:
    """POST the event; WebhookError says why not, and whether trying again can help."""
    if not n.url.lower().startswith(("http://", "https://")):
        raise WebhookError("only http:// and https:// URLs are called", permanent=True)
    refused = url_refusal(n.url)
    if refused:
        raise WebhookError(refused, permanent=True)
    secret = n.event.rule.webhook_secret if n.event_id else ""
    try:
        with OPENER.open(request(n, secret), timeout=settings.WEBHOOK_TIMEOUT) as answer:
            answer.read(1024)
    except RefusedTarget as exc:  # checked on the addresses connected to: the rule's form checked them once
        raise WebhookError(str(exc), permanent=True) from None
    except urllib.error.HTTPError as exc:
        # Only the status: a receiver's body may echo what it should not show on our pages.
        temporary = exc.code >= 500 or exc.code in RETRY_STATUSES
        raise WebhookError(f"HTTP {exc.code}", permanent=not temporary) from None
    except ValueError:
        raise WebhookError("not a URL that can be called", permanent=True) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise WebhookError(f"not reached: {type(reason).__name__}", permanent=False) from None
