// Filters and grouping of the suggestion tables: plain JavaScript, no server, no library.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) {
    return;
  }
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.suggestion"));
  var groups = Array.prototype.slice.call(document.querySelectorAll("tbody.group"));
  var views = { source: document.getElementById("by-source"), target: document.getElementById("by-target") };
  var counter = document.getElementById("shown-count");

  function value(id) {
    var element = document.getElementById(id);
    return element ? element.value : "";
  }

  function matches(row, wanted) {
    var data = row.dataset;
    return (!wanted.source || data.source === wanted.source) &&
      (!wanted.target || data.target === wanted.target) &&
      (!wanted.sourceType || data.sourceType === wanted.sourceType) &&
      (!wanted.targetType || data.targetType === wanted.targetType) &&
      (!wanted.placement || data.placement === wanted.placement) &&
      parseFloat(data.confidence) >= wanted.confidence;
  }

  function apply() {
    var confidence = parseFloat(value("f-confidence"));
    var wanted = {
      source: value("f-source"),
      target: value("f-target"),
      sourceType: value("f-source-type"),
      targetType: value("f-target-type"),
      placement: value("f-placement"),
      confidence: isNaN(confidence) ? 0 : confidence
    };
    var shown = 0;
    rows.forEach(function (row) {
      var keep = matches(row, wanted);
      row.hidden = !keep;
      if (keep && row.dataset.view === "source") {
        shown += 1;
      }
    });
    groups.forEach(function (group) {
      group.hidden = !group.querySelector("tr.suggestion:not([hidden])");
    });
    var grouping = form.querySelector("input[name=group]:checked");
    var by = grouping ? grouping.value : "source";
    Object.keys(views).forEach(function (key) {
      if (views[key]) {
        views[key].hidden = key !== by;
      }
    });
    if (counter) {
      counter.textContent = String(shown);
    }
  }

  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () {
    window.setTimeout(apply, 0);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  apply();
})();
