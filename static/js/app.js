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
    // the field shows the model's name; its slug goes in a hidden input of the same name, which the form
    // submits (the visible field gives up its name until the customer types again)
    var slug = option.getAttribute("data-pick-model");
    input.value = option.getAttribute("data-model-name") || slug;
    modelSlugSet(input, slug);
    // the field keeps what was picked: focusing it again, or a search answer still on its way, must not
    // reopen the list over the next field (issue 37, item 7)
    input.setAttribute("data-picked", input.value);
    closeModelOptions();
    input.focus();
  });
  function modelSlugSet(input, slug) {
    var hidden = document.getElementById("model-slug");
    if (slug === null) {
      if (hidden) hidden.remove();
      if (input.hasAttribute("data-name")) input.setAttribute("name", input.getAttribute("data-name"));
      return;
    }
    if (!input.hasAttribute("data-name")) input.setAttribute("data-name", input.getAttribute("name") || "model");
    if (!hidden) {
      hidden = document.createElement("input");
      hidden.type = "hidden";
      hidden.id = "model-slug";
      input.insertAdjacentElement("afterend", hidden);
    }
    hidden.name = input.getAttribute("data-name");
    hidden.value = slug;
    input.removeAttribute("name");
  }
  // The suggestions open under the field: on a phone that can be below the window, so the field (with its
  // label) scrolls up to the top and the list opens in view.
  document.addEventListener("htmx:afterSettle", function (event) {
    var box = document.getElementById("model-options");
    if (!box || !event.detail || event.detail.elt !== box || !box.firstElementChild) return;
    var input = modelInput();
    if (!input || box.getBoundingClientRect().bottom <= window.innerHeight) return;
    (input.closest(".model-picker") || input).scrollIntoView({ block: "start" });  // its label stays in view
  });
  function pickedStill(input) {
    return Boolean(input) && input.getAttribute("data-picked") === input.value;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var input = modelInput();
    if (event.detail && event.detail.elt === input && pickedStill(input)) event.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "model-options" && pickedStill(modelInput())) event.detail.shouldSwap = false;
  });
  document.addEventListener("input", function (event) {
    if (event.target !== modelInput()) return;
    event.target.removeAttribute("data-picked");
    modelSlugSet(event.target, null);  // typed again: the field itself is the query
  });

  // The skip link of the workload page lands in the model field, ready to type.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-skip-to-field]");
    var field = link ? document.querySelector(link.getAttribute("href")) : null;
    if (!field) return;
    event.preventDefault();
    field.focus();
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
      // the answer's top at the top of the window (beside it the form stays, sticky), not the page's top
      heading.focus({ preventScroll: true });
      if (heading.scrollIntoView) heading.scrollIntoView({ block: "start" });
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

  // ---------------------------------------------------------------- workload page: the answer follows the inputs
  // A change to the form asks for the answer alone (fragment=results), half a second after the last keystroke;
  // the server answers with HX-Replace-Url, so the address always holds the inputs of the answer shown.
  // The model field is searched while typed and sent once picked or left; without JavaScript the form's
  // submit button renders the same answer. A newer request replaces one in flight (hx-sync on the form), so
  // the answer to the inputs shown never waits behind, or lands after, one to inputs already changed.
  var liveTimer = null;
  function liveForm(element) {
    return element && element.closest ? element.closest("form[data-live-results]") : null;
  }
  function refreshResults(form) {
    if (!window.htmx) return;
    window.htmx.ajax("POST", form.getAttribute("action"), {
      source: form,
      target: form.getAttribute("data-live-results"),
      swap: "innerHTML",
      values: { fragment: "results" }
    });
  }
  function scheduleResults(form, delay) {
    window.clearTimeout(liveTimer);
    liveTimer = window.setTimeout(function () { refreshResults(form); }, delay);
  }
  document.addEventListener("input", function (event) {
    var form = liveForm(event.target);
    if (!form || event.target.id === "id_model") return;
    scheduleResults(form, 500);
  });
  document.addEventListener("change", function (event) {
    var form = liveForm(event.target);
    if (!form) return;
    scheduleResults(form, event.target.id === "id_model" ? 150 : 300);
  });
  document.addEventListener("click", function (event) {
    var option = event.target.closest && event.target.closest("[data-pick-model]");
    var form = option ? liveForm(modelInput()) : null;
    if (form) scheduleResults(form, 0);
  });
  document.addEventListener("submit", function (event) {
    if (liveForm(event.target)) window.clearTimeout(liveTimer);
  });
  // A live answer is announced by its heading (or its notice), not read out whole.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    var announce = document.getElementById("results-announce");
    if (!announce || !target || target.id !== "results") return;
    var line = target.querySelector("#results-title, .notice p, .empty-state p");
    announce.textContent = line ? line.textContent.replace(/\s+/g, " ").trim() : "";
    showResultsUpdated(target);
  });
  // On a phone the answer is below the form: when a live answer lands out of sight, a link in view says so
  // and takes the reader there; it goes away once the answer's top is in the window.
  function resultsBelowWindow(results) {
    return results.getBoundingClientRect().top > window.innerHeight;
  }
  function showResultsUpdated(results) {
    var link = document.getElementById("results-updated");
    if (!link) return;
    link.hidden = !resultsBelowWindow(results);
    if (!link.hidden) keepClearOfLink(link);
  }
  // The link floats over the form: the field being edited and the next field's label must not be under it
  // (issue 37 trial at 390 px: it covered "Целевая скорость…"). Scroll them up above it, never the edited
  // field off the top.
  function keepClearOfLink(link) {
    var active = document.activeElement;
    var field = active && active.closest ? active.closest(".field") : null;
    if (!field) return;
    var next = field.nextElementSibling;
    var label = next && next.querySelector ? next.querySelector("label, legend") : null;
    var bottom = (label || field).getBoundingClientRect().bottom;
    var top = link.getBoundingClientRect().top - 8;
    if (bottom <= top) return;
    var room = field.getBoundingClientRect().top - 8;
    window.scrollBy(0, Math.min(bottom - top, Math.max(room, 0)));
  }
  document.addEventListener("focusin", function () {
    var link = document.getElementById("results-updated");
    if (link && !link.hidden) keepClearOfLink(link);
  });
  window.addEventListener("scroll", function () {
    var link = document.getElementById("results-updated");
    var results = document.getElementById("results");
    if (link && !link.hidden && results && !resultsBelowWindow(results)) link.hidden = true;
  }, { passive: true });
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("#results-updated");
    var heading = document.getElementById("results-title") || document.getElementById("results");
    if (!link || !heading) return;
    event.preventDefault();
    link.hidden = true;
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
    heading.scrollIntoView({ block: "start" });
  });

  // ---------------------------------------------------------------- build editor
  // Search inside the part lists: options whose text does not hold the query are hidden (the chosen one stays).
  function filterOptions(input) {
    var scope = document.getElementById(input.getAttribute("data-filter-for"));
    if (!scope) return;
    var query = input.value.trim().toLowerCase();
    var selects = scope.tagName === "SELECT" ? [scope] : Array.prototype.slice.call(scope.querySelectorAll("select"));
    selects.forEach(function (select) {
      Array.prototype.forEach.call(select.options, function (option) {
        option.hidden = Boolean(query) && !option.selected && option.value !== "" &&
          option.text.toLowerCase().indexOf(query) < 0;
      });
      Array.prototype.forEach.call(select.querySelectorAll("optgroup"), function (group) {
        group.hidden = !Array.prototype.some.call(group.children, function (option) { return !option.hidden; });
      });
    });
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("[data-filter-for]")) filterOptions(event.target);
  });
  // The filter fields are not part of the build: keep their typing away from the editor's checks.
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.matches && event.target.matches("[data-filter-for]")) {
      event.preventDefault();
    }
  });

  // The build lives in the address (?build=…): a reload or a shared link shows it as it is now. Leaving with
  // changes not saved asks first (saving or requesting a quote does not).
  var unsaved = false;
  var leaving = false;
  function syncEditorState(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var markers = scope.querySelectorAll("[data-state-url]");
    if (!markers.length) return;
    var marker = markers[markers.length - 1];
    var url = marker.getAttribute("data-state-url");
    if (url && url !== window.location.pathname + window.location.search) {
      window.history.replaceState(window.history.state, "", url);
    }
    unsaved = marker.getAttribute("data-unsaved") === "true";
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    syncEditorState(event.detail && event.detail.elt && event.detail.elt.isConnected ? event.detail.elt : document);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { syncEditorState(document); });
  } else {
    syncEditorState(document);
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("#build-form");
    if (form && !(event.target.matches && event.target.matches("[data-filter-for]"))) unsaved = true;
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#build-form button[name='op']");
    if (button && (button.value === "save" || button.value === "quote")) leaving = true;
  });
  document.addEventListener("htmx:afterSettle", function () { leaving = false; });
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.getResponseHeader && xhr.getResponseHeader("HX-Redirect")) leaving = true;
  });
  window.addEventListener("beforeunload", function (event) {
    if (!unsaved || leaving || !document.getElementById("build-form")) return;
    event.preventDefault();
    event.returnValue = "";
  });

  // Under each part list, the chosen line in full (a closed <select> cuts long names, specs and price off).
  function showChosen(root) {
    var scope = root && root.querySelectorAll ? root : document;
    Array.prototype.forEach.call(scope.querySelectorAll("[data-chosen-for]"), function (note) {
      var select = document.getElementById(note.getAttribute("data-chosen-for"));
      var option = select && select.selectedIndex >= 0 ? select.options[select.selectedIndex] : null;
      note.textContent = option && option.value ? option.text : "";
      if (select && option) select.title = option.value ? option.text : "";
    });
  }
  if (window.htmx && window.htmx.onLoad) window.htmx.onLoad(showChosen);
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select")) showChosen(document);
  });

  // A service a quote sells once (a warranty, an on-site contract, a delivery): ticking one of its kind
  // unticks the others in the same list, as the request page enforces.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("input[type=checkbox][data-one-of]") || !box.checked) return;
    var list = box.closest("[data-services]") || document;
    var kind = box.getAttribute("data-one-of");
    Array.prototype.forEach.call(list.querySelectorAll("input[type=checkbox][data-one-of]"), function (other) {
      if (other !== box && other.getAttribute("data-one-of") === kind) other.checked = false;
    });
  });
})();
