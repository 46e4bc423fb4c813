// Reloads pages that show "now" (the fleet) while they are visible.
(function () {
  "use strict";
  const el = document.querySelector("[data-refresh]");
  const seconds = Number(el ? el.dataset.refresh : 0);
  if (seconds > 0) {
    window.setInterval(function () {
      if (document.visibilityState === "visible") window.location.reload();
    }, seconds * 1000);
  }
})();
