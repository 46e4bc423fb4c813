"""Figure builders are pure: data in, traces and axes out, and valid for Plotly."""

from datetime import timedelta

import plotly.graph_objects as go
import pytest

from dashboards.analysis.stability import Dip
from dashboards.figures.common import Mark, epoch_ms, iso
from dashboards.figures.compare import AlignedRun, compare_figure
from dashboards.figures.explore import explore_figure
from dashboards.figures.purge import Reference, purge_figure
from dashboards.figures.stability import stability_figure
from testing.dashboards import T0, Pts, every

EVIL = "<script>alert(1)</script>"


def _stability(**kw):
    tps = every(10, [100, 110, 20, 15, 105, 100])
    waits = [("wait/synch/mutex/innodb/trx_sys_mutex", every(10, [5e11] * 6)),
             ("wait/io/file/innodb/innodb_log_file", every(10, [2e11] * 6))]
    mutexes = [("trx_sys.cc:123", every(10, [40, 50, 60, 70, 20, 10]))]
    return stability_figure(tps, waits, mutexes, **kw)


def test_it_shares_one_time_axis_across_the_three_rows():
    fig = _stability()
    layout = fig["layout"]
    assert layout["xaxis2"]["matches"] == "x" and layout["xaxis3"]["matches"] == "x"
    assert "matches" not in layout["xaxis"]
    assert {t["xaxis"] for t in fig["data"]} == {"x", "x2", "x3"}
    assert all(layout[k]["showticklabels"] for k in ("xaxis", "xaxis2", "xaxis3"))  # time labels on every row
    go.Figure(fig)  # Plotly accepts it


def test_it_stacks_waits_as_seconds_per_second():
    waits = [t for t in _stability()["data"] if t["yaxis"] == "y2"]
    assert len(waits) == 2
    assert all(t.get("stackgroup") == "stack2-0" for t in waits)
    assert waits[0]["y"][0] == 0.5  # 5e11 ps/s is half a second waited per second


def test_a_stacked_wait_breaks_at_a_hole():
    gappy = every(10, [1e12, 1e12, None, 2e12, 2e12])
    waits = [t for t in stability_figure(every(10, [1] * 5), [("a", gappy), ("b", gappy)], [])["data"]
             if t["yaxis"] == "y2"]
    assert [(t["name"], t["stackgroup"], t["y"], t["showlegend"]) for t in waits] == [
        ("a", "stack2-0", [1.0, 1.0], True), ("a", "stack2-1", [2.0, 2.0], False),
        ("b", "stack2-0", [1.0, 1.0], True), ("b", "stack2-1", [2.0, 2.0], False)]


def test_it_shades_dips_across_every_row():
    dip = Dip(T0 + timedelta(seconds=20), T0 + timedelta(seconds=40), 15)
    fig = _stability(dips=[dip], dip_threshold=52.5)
    rects = [s for s in fig["layout"]["shapes"] if s["type"] == "rect"]
    assert len(rects) == 1 and rects[0]["yref"] == "paper"
    assert rects[0]["x0"] == iso(dip.start) and rects[0]["x1"] == iso(dip.end)
    assert rects[0]["x0"] == "2026-01-05T12:00:20"
    assert any(t["name"] == "dip threshold" and t["y"] == [52.5, 52.5] for t in fig["data"])


def test_it_draws_annotations_and_runs_on_the_chart():
    marks = [Mark("restart", T0 + timedelta(seconds=30)), Mark("run A", T0, T0 + timedelta(minutes=1))]
    layout = _stability(marks=marks)["layout"]
    kinds = sorted(s["type"] for s in layout["shapes"])
    assert kinds == ["line", "rect"]
    assert {"restart", "run A"} <= {a["text"] for a in layout["annotations"]}


def test_it_escapes_names_for_plotly():
    tps = every(10, [1, 2])
    fig = stability_figure(tps, [(EVIL, every(10, [1, 2]))], [], marks=[Mark(EVIL, T0)])
    texts = [t["name"] for t in fig["data"]] + [a["text"] for a in fig["layout"]["annotations"]]
    assert not any("<script>" in t for t in texts)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in texts


def test_it_says_why_a_row_is_empty():
    fig = stability_figure(Pts(), [], [])
    notes = [a["text"] for a in fig["layout"]["annotations"]]
    assert any("no TPS samples" in n for n in notes)
    assert any("performance_schema" in n for n in notes)


def test_purge_figure_draws_the_max_purge_lag_line():
    hist = every(10, [1000, 6000, 3000])
    refs = [Reference("innodb_max_purge_lag 5,000", 5000, True), Reference("rule 'x': above 100,000", 100000)]
    fig = purge_figure(hist, every(10, [5, 5, 5]), [], None, refs)
    ref = next(t for t in fig["data"] if t["name"] == "innodb_max_purge_lag 5,000")
    assert ref["y"] == [5000, 5000] and ref["x"] == [epoch_ms(hist.ts[0]), epoch_ms(hist.ts[-1])]
    assert any(t["name"] == "rule 'x': above 100,000 (above this scale)" for t in fig["data"])
    assert fig["layout"]["yaxis"]["range"] == [0, pytest.approx(6600)]  # the data's, not the rule's
    assert fig["layout"]["xaxis4"]["matches"] == "x"
    assert any("purge counters are off" in a["text"] for a in fig["layout"]["annotations"])
    go.Figure(fig)


def test_explore_figure_has_one_trace_per_series():
    fig = explore_figure([("db1 · tps", every(10, [1, 2])), ("db2 · qps", every(10, [3, 4]))], log=True)
    assert [t["name"] for t in fig["data"]] == ["db1 · tps", "db2 · qps"]
    assert fig["layout"]["yaxis"]["type"] == "log"
    go.Figure(fig)


def test_compare_aligns_runs_at_zero():
    later = T0 + timedelta(days=3)
    runs = [
        AlignedRun("A", T0, every(10, [1, 2, 3]), every(10, [5, 6, 7]), every(10, [1e12] * 3)),
        AlignedRun("B", later, every(10, [4, 5], later), every(10, [8, 9], later), every(10, [0, 0], later)),
    ]
    fig = compare_figure(runs, "wait/io/file/sql/binlog", notes=[(120.0, "B: " + EVIL)])
    tps = [t for t in fig["data"] if t["yaxis"] == "y"]
    assert [t["x"][0] for t in tps] == [0.0, 0.0]
    assert tps[0]["x"] == [0.0, 10.0, 20.0]
    waits = [t for t in fig["data"] if t["yaxis"] == "y3"]
    assert waits[0]["y"] == [1.0, 1.0, 1.0]
    assert fig["layout"]["xaxis"]["type"] == "linear"
    assert fig["layout"]["shapes"][0]["x0"] == 120.0
    assert "B: &lt;script&gt;alert(1)&lt;/script&gt;" in [a["text"] for a in fig["layout"]["annotations"]]
    go.Figure(fig)



def test_it_marks_the_points_of_a_sparse_line():
    from dashboards.figures.common import SPARSE_POINTS, line

    assert line(every(60, [5.0]), "mutex")["mode"] == "lines+markers"
    assert line(every(10, [1.0] * (SPARSE_POINTS + 1)), "tps")["mode"] == "lines"


def test_mark_labels_are_cut_short_staggered_and_keep_the_full_text_on_hover():
    from dashboards.figures.common import LABEL_CHARS

    long = "innodb_flush_neighbors=0 and innodb_io_capacity=2000 after the checkpoint stall"
    marks = [Mark(f"{k}: {long}", T0 + timedelta(seconds=20 * k)) for k in range(4)]
    x_range = (T0, T0 + timedelta(hours=1))
    fig = stability_figure(every(10, [1, 2, 3]), [], [], marks=marks, x_range=x_range)
    labels = [a for a in fig["layout"]["annotations"] if a.get("hovertext")]
    assert len(labels) == 3 and len({a["yshift"] for a in labels}) == 3  # three rows of labels
    assert labels[2]["hovertext"] == f"2: {long}<br>3: {long}"  # the fourth joins the third: all on hover
    assert labels[2]["text"].endswith(" +1") and all(len(a["text"]) <= LABEL_CHARS + 3 for a in labels)
    assert fig["layout"]["xaxis"]["range"] == ["2026-01-05T12:00:00", "2026-01-05T13:00:00"]
    assert fig["layout"]["xaxis"]["autorange"] is False


def test_waits_are_stacked_only_where_every_point_is_the_same_polls_reading():
    a, b = every(10, [1e12, 2e12, 1e12]), every(10, [3e11, 3e11, 3e11])
    stacked = stability_figure(every(10, [5, 5, 5]), [("a", a), ("b", b)], [])
    assert {t.get("stackgroup") for t in stacked["data"][1:]} == {"stack2-0"}
    # rollup points (per_poll False): a bucket's highest of a stacked on b's is a total no poll read
    coarse = stability_figure(every(10, [5, 5, 5]), [("a", a), ("b", b)], [], per_poll=False)
    assert not any("stackgroup" in t for t in coarse["data"]) and coarse["data"][1]["y"] == [1.0, 2.0, 1.0]
    # series read at different points (downsampled each on its own): Plotly would take b's missing x for 0
    apart = stability_figure(every(10, [5, 5, 5]), [("a", a), ("b", every(10, [3e11, 3e11]))], [])
    assert not any("stackgroup" in t for t in apart["data"])
