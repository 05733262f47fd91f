/* GPU configurator — the little behaviour htmx does not give: the model picker and focus after swaps. */
(function () {
  "use strict";

  function modelInput() {
    return document.getElementById("id_model");
  }

  function closeModelOptions() {
    var box = document.getElementById("model-options");
    if (box) box.innerHTML = "";
  }

  // Picking a suggested model fills the field.
  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest("[data-pick-model]");
    if (!option) return;
    var input = modelInput();
    if (!input) return;
    input.value = option.getAttribute("data-pick-model");
    closeModelOptions();
    input.focus();
  });

  // Keyboard: arrow down from the field into the list, arrows within it, Escape closes it.
  document.addEventListener("keydown", function (event) {
    var input = modelInput();
    var box = document.getElementById("model-options");
    if (!input || !box) return;
    var options = Array.prototype.slice.call(box.querySelectorAll("[data-pick-model]"));
    if (event.key === "Escape" && (event.target === input || box.contains(event.target))) {
      closeModelOptions();
      input.focus();
      return;
    }
    if (!options.length || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) return;
    var index = options.indexOf(document.activeElement);
    if (event.target === input && event.key === "ArrowDown") {
      options[0].focus();
    } else if (index >= 0) {
      var next = index + (event.key === "ArrowDown" ? 1 : -1);
      if (next < 0) input.focus();
      else if (next < options.length) options[next].focus();
    } else {
      return;
    }
    event.preventDefault();
  });

  // Clicking elsewhere closes the suggestions.
  document.addEventListener("focusin", function (event) {
    var picker = event.target.closest && event.target.closest(".model-picker");
    if (!picker) closeModelOptions();
  });

  // After an htmx swap: focus what the server marked (a new line, an error, the results' heading).
  document.addEventListener("htmx:afterSettle", function (event) {
    var root = event.detail && event.detail.elt ? event.detail.elt : document;
    var scope = root.isConnected ? root : document;
    var marker = scope.querySelector("[data-focus-id]");
    if (marker) {
      var target = document.getElementById(marker.getAttribute("data-focus-id"));
      if (target) target.focus();
      return;
    }
    var invalid = scope.querySelector("[aria-invalid='true']");
    if (invalid) {
      invalid.focus();
      return;
    }
    var heading = scope.querySelector("[data-focus-on-swap]");
    if (heading) {
      heading.focus();
      if (heading.scrollIntoView) heading.scrollIntoView({ block: "start", behavior: "smooth" });
    }
  });

  // Bar widths and marks come as data-width / data-left (the Content-Security-Policy allows no inline
  // style attributes); setting them through the style object is allowed. Runs on the first page and on
  // every fragment htmx swaps in.
  function applySizes(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var sized = Array.prototype.slice.call(scope.querySelectorAll("[data-width], [data-left]"));
    if (scope.matches && scope.matches("[data-width], [data-left]")) sized.push(scope);
    sized.forEach(function (element) {
      if (element.hasAttribute("data-width")) element.style.width = element.getAttribute("data-width");
      if (element.hasAttribute("data-left")) element.style.left = element.getAttribute("data-left");
    });
  }
  if (window.htmx && window.htmx.onLoad) {
    window.htmx.onLoad(applySizes);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { applySizes(document); });
  } else {
    applySizes(document);
  }

  // The API token field selects itself, ready to copy.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("[data-token]")) event.target.select();
  });
})();
