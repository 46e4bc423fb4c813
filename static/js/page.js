// Behaviour every page may use, without inline handlers (the Content-Security-Policy allows no inline script).
document.addEventListener("change", function (event) {
  if (event.target.matches("[data-autosubmit]")) event.target.form.submit();
});
document.addEventListener("click", function (event) {
  if (event.target.closest("[data-print]")) window.print();
});
