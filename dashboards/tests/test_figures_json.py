"""The figures' <script> element: JSON whose <, > and & cannot end it, holding what Django's json_script holds."""

import json
import re

from django.utils.html import json_script

from dashboards.templatetags.dash_fmt import figures_json

SCRIPT = re.compile(r'<script id="figures" type="application/json">(.*)</script>', re.S)


def test_it_escapes_what_could_end_the_script_element():
    value = {"name": "</script><b>&amp;", "x": [1, 2.5, None]}
    expected = ('<script id="figures" type="application/json">{"name":'
                '"\\u003C/script\\u003E\\u003Cb\\u003E\\u0026amp;","x":[1,2.5,null]}</script>')
    assert figures_json(value, "figures") == expected


def test_it_holds_what_json_script_holds():
    value = {"trace": {"name": "wait/io/file/innodb/innodb_data_file <latch> & co", "y": [0.1, 1e-7, 10**20]},
             "text": "é \u2028 \"quoted\""}
    ours, django = (SCRIPT.fullmatch(html).group(1) for html in (figures_json(value, "figures"),
                                                                   json_script(value, "figures")))
    assert not re.search("[<>&]", ours)
    assert json.loads(ours) == json.loads(django) == value
