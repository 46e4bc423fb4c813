// Charts on paper: Plotly draws at a fixed pixel width, so redraw them at the
// printable width of an A4 page before printing, and at the screen's after.
(function () {
  var PAPER_WIDTH = 700;  // A4 portrait, 12 mm margins: 186 mm at 96 px/inch
  var LEGEND_HEIGHT = 110;
  function charts() {
    return Array.prototype.slice.call(document.querySelectorAll(".report .chart[data-ready='1']"));
  }
  window.reportForPaper = function () {
    if (!window.Plotly) return Promise.resolve();
    return Promise.all(charts().map(function (div) {
      if (!div.dataset.screen) {  // the screen layout, to go back to after printing
        div.dataset.screen = JSON.stringify({legend: div.layout.legend, height: div.layout.height});
      }
      var screen = JSON.parse(div.dataset.screen);
      // Long event names in a side legend would leave the plot a sliver: legend below.
      return Plotly.relayout(div, {
        width: PAPER_WIDTH, autosize: false, height: (screen.height || 450) + LEGEND_HEIGHT,
        legend: {orientation: "h", x: 0, xanchor: "left", y: -0.1, yanchor: "top", font: {size: 9}},
      });
    }));
  };
  window.reportForScreen = function () {
    if (!window.Plotly) return;
    charts().forEach(function (div) {
      var screen = div.dataset.screen ? JSON.parse(div.dataset.screen) : {};
      Plotly.relayout(div, {width: null, autosize: true, height: screen.height, legend: screen.legend});
    });
  };
  window.addEventListener("beforeprint", window.reportForPaper);
  window.addEventListener("afterprint", window.reportForScreen);
  var button = document.querySelector(".report .print");
  if (button) button.addEventListener("click", function () {
    window.reportForPaper().then(function () { window.print(); });
  });
})();
