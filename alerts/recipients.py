"""Who alert e-mails go to, and whether those addresses can be mailed at all.

ALERT_RECIPIENTS is checked at start (a system check: `up`, `manage.py check`
and every management command refuse to run), shown on the Alerts page, and a
notification to a bad address is marked failed with the reason instead of
retrying forever.
"""

from django.conf import settings
from django.core import checks
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

HINT = "Separate addresses with commas, e.g. ALERT_RECIPIENTS=dba@example.com,oncall@example.com"


def valid_email(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True


def invalid(addresses: list[str]) -> list[str]:
    return [a for a in addresses if not valid_email(a)]


def default_recipients() -> list[str]:
    """ALERT_RECIPIENTS, for rules without their own recipients."""
    return list(getattr(settings, "ALERT_RECIPIENTS", []))


def setting_problem() -> str:
    """What is wrong with ALERT_RECIPIENTS, worded for a person ("" if nothing)."""
    bad = invalid(default_recipients())
    if not bad:
        return ""
    return "ALERT_RECIPIENTS: not valid e-mail address(es): " + ", ".join(repr(a) for a in bad) + ". " + HINT


@checks.register(checks.Tags.compatibility)
def check_setting(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    problem = setting_problem()
    return [checks.Error(problem, id="alerts.E001")] if problem else []
