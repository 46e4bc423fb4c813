"""The fleet table draws what a server's TPS counts in Python: the same HTML as the pages' include."""

import pytest
from django.template.loader import render_to_string

from dashboards.server_texts import TpsBasis
from dashboards.views.fleet_table import basis_html


@pytest.mark.parametrize("basis", [
    None,
    TpsBasis("commits + rollbacks", "TPS counts <every> transaction", False),
    TpsBasis("explicit only", "TPS counts COMMIT & ROLLBACK", True, "SET GLOBAL x = 'on' <here>"),
])
def test_it_draws_the_tps_basis_as_the_include_does(basis):
    assert str(basis_html(basis)) == render_to_string("dashboards/_tps_basis.html", {"basis": basis})
