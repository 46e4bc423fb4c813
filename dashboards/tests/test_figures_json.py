"""The figures' <script> element: JSON whose <, > and & cannot end it, as Django's json_script writes it."""

from django.utils.html import json_script

from dashboards.templatetags.dash_fmt import figures_json


def test_it_escapes_what_could_end_the_script_element():
    value = {"name": "</script><b>&amp;", "x": [1, 2.5, None]}
    expected = ('<script id="figures" type="application/json">{"name": '
                '"\\u003C/script\\u003E\\u003Cb\\u003E\\u0026amp;", "x": [1, 2.5, null]}</script>')
    assert figures_json(value, "figures") == expected


def test_it_writes_what_json_script_writes():
    value = {"trace": {"name": "wait/io/file/innodb/innodb_data_file <latch> & co", "y": [0.1, 1e-7, 10**20]},
             "text": "é \u2028 \"quoted\""}
    assert figures_json(value, "figures") == json_script(value, "figures")
