// Draws the page's Plotly figures (embedded as JSON) and keeps the view in the URL.
(function () {
  "use strict";
  const source = document.getElementById("figures");
  if (!source || !window.Plotly) return;
  const figures = JSON.parse(source.textContent);
  const config = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  const pageUrl = new URL(window.location.href);
  let zoomed = false;

  function plotlyTime(value) {
    // Plotly gives "2026-01-05 12:00:00.123"; the pages read ISO, naive = UTC.
    return String(value).replace(" ", "T").slice(0, 19);
  }

  function zoomRange(event) {
    for (const key of Object.keys(event)) {
      const m = key.match(/^xaxis\d*\.range\[0\]$/);
      if (m) return [event[key], event[key.replace("[0]", "[1]")]];
      if (/^xaxis\d*\.range$/.test(key)) return event[key];
    }
    for (const key of Object.keys(event)) {
      if (/^xaxis\d*\.autorange$/.test(key)) return "auto";
    }
    return null;
  }

  // A chart with data-follow="<id>" (the stability view's host panel) keeps the time axis of
  // that chart: the same range, the same plot-area edges; zooming either zooms both.
  let following = false;

  function alignTo(leader, follower) {
    const size = leader._fullLayout._size, range = leader._fullLayout.xaxis.range;
    return Plotly.relayout(follower, { "margin.l": size.l, "margin.r": size.r, "xaxis.range": range.slice() });
  }

  function pairs() {
    return Array.from(document.querySelectorAll("[data-follow]")).map(function (follower) {
      return [document.getElementById(follower.dataset.follow), follower];
    }).filter(function (pair) { return pair[0] && pair[0].dataset.ready === "1" && pair[1].dataset.ready === "1"; });
  }

  function follow(div) {
    if (following) return;
    following = true;
    const moves = pairs().map(function (pair) {
      const leader = pair[0], follower = pair[1];
      if (div === follower) return Plotly.relayout(leader, { "xaxis.range": follower._fullLayout.xaxis.range.slice() });
      return alignTo(leader, follower);
    });
    Promise.all(moves).finally(function () { following = false; });
  }

  function onZoom(div, event) {
    const range = zoomRange(event);
    if (!range || div.dataset.timeAxis !== "1" || following) return;
    follow(div);
    const link = document.querySelector(".zoomed-link");
    if (range === "auto") {
      zoomed = false;
      window.history.replaceState(null, "", pageUrl.href);
      if (link) link.hidden = true;
      return;
    }
    zoomed = true;  // a zoomed view is no longer live: stop refreshing it away
    const url = new URL(pageUrl.href);
    url.searchParams.delete("range");
    url.searchParams.set("from", plotlyTime(range[0]));
    url.searchParams.set("to", plotlyTime(range[1]));
    window.history.replaceState(null, "", url.href);  // the address keeps the view: share it
    if (link) { link.href = url.href; link.hidden = false; }
    // Links to another page of the same range (the stability page's "Statements in this range") follow the zoom.
    document.querySelectorAll("a[data-keeps-range]").forEach(function (a) {
      const target = new URL(a.href);
      target.searchParams.delete("range");
      target.searchParams.set("from", url.searchParams.get("from"));
      target.searchParams.set("to", url.searchParams.get("to"));
      a.href = target.href;
    });
  }

  const drawn = [];
  for (const [id, fig] of Object.entries(figures)) {
    const div = document.getElementById(id);
    if (!div) continue;
    drawn.push(Plotly.newPlot(div, fig.data, fig.layout, config).then(function () {
      div.on("plotly_relayout", function (event) { onZoom(div, event); });
      div.dataset.ready = "1";
    }));
  }
  Promise.all(drawn).then(function () { follow(null); });

  // Live ranges ("last 1h") refresh; the chart width bounds the points asked for.
  const body = document.body;
  const refresh = Number(document.querySelector("[data-refresh]")?.dataset.refresh || 0);
  if (refresh > 0) {
    window.setInterval(function () {
      if (!zoomed && document.visibilityState === "visible") window.location.reload();
    }, refresh * 1000);
  }
  const chart = document.querySelector(".chart");
  if (chart && !pageUrl.searchParams.has("w") && body) {
    const width = Math.round(chart.clientWidth);
    document.querySelectorAll("form.toolbar").forEach(function (form) {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "w"; input.value = width;
      form.appendChild(input);
    });
  }
})();
