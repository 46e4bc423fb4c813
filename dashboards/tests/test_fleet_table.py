"""The fleet table draws what a server's TPS counts in Python: the same HTML as the pages' include."""

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from dashboards.server_texts import TpsBasis
from dashboards.views.fleet_table import basis_html, html_path


@pytest.mark.parametrize("basis", [
    None,
    TpsBasis("commits + rollbacks", "TPS counts <every> transaction", False),
    TpsBasis("explicit only", "TPS counts COMMIT & ROLLBACK", True, "SET GLOBAL x = 'on' <here>"),
])
def test_it_draws_the_tps_basis_as_the_include_does(basis):
    assert str(basis_html(basis)) == render_to_string("dashboards/_tps_basis.html", {"basis": basis})


@pytest.mark.parametrize("name", ["dashboards:stability", "dashboards:purge", "dashboards:waits", "dashboards:host",
                                  "dashboards:replication"])
def test_it_links_a_server_page_as_reverse_does(name):
    for pk in (1, 10, 307):
        assert html_path(name)(pk) == reverse(name, args=[pk])
