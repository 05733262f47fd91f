"""Issue 37, item 7 in a real browser: on a phone the answer's update is seen, the menu wraps, the skip link
lands in the model field, the suggestion list stays closed after a pick, and the focus ring is at least 3:1
(WCAG 1.4.11) against what lies under it on every background it appears on."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, ViewportSize, expect

from tests import factories
from tests.e2e import conftest

DESKTOP: ViewportSize = {"width": conftest.DESKTOP["width"], "height": conftest.DESKTOP["height"]}
PHONE: ViewportSize = {"width": conftest.PHONE["width"], "height": conftest.PHONE["height"]}

PRESET = "70b-team"

#: The WCAG 2.x relative luminance and contrast ratio, and the colour under the ring: the element found at
#: the middle of the ring's stroke on each side (outline-offset + half the width outside the box) that is not
#: the focused element, its background composited over its ancestors' down to the white canvas.
RING_CONTRAST_JS = """
(el) => {
  const parse = (text) => {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const background = (node) => {
    const layers = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let colour = {r: 255, g: 255, b: 255, a: 1};
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const lum = (c) => {
    const ch = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const style = getComputedStyle(el);
  const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "") +
    " «" + (el.textContent || el.value || "").replace(/\\s+/g, " ").trim().slice(0, 40) + "»";
  const width = parseFloat(style.outlineWidth) || 0;
  if (style.outlineStyle === "none" || width === 0) return {name, ring: false, min: 0, samples: []};
  const ring = parse(style.outlineColor);
  const d = (parseFloat(style.outlineOffset) || 0) + width / 2;
  const box = el.getBoundingClientRect();
  const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
  const points = [[box.left - d, cy], [box.right + d, cy], [cx, box.top - d], [cx, box.bottom + d]];
  const samples = [];
  for (const [x, y] of points) {
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) continue;
    const under = document.elementsFromPoint(x, y).find((n) => n !== el && !el.contains(n));
    if (!under) continue;
    const bg = background(under);
    samples.push({under: under.tagName.toLowerCase() + "." + String(under.className || ""),
                  bg: [Math.round(bg.r), Math.round(bg.g), Math.round(bg.b)], ratio: ratio(ring, bg)});
  }
  return {name, ring: true, min: samples.length ? Math.min(...samples.map((s) => s.ratio)) : null, samples};
}
"""


def _tab_walk(page: Page, limit: int = 160) -> list[dict[str, Any]]:
    """Tab from the top of the page until focus leaves the page or comes back round; the ring of each stop."""
    page.locator("body").focus()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    seen: list[str] = []
    rings: list[dict[str, Any]] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        key = page.evaluate(
            "(() => { const e = document.activeElement; if (!e || e === document.body) return '';"
            " if (!e.dataset.tabWalk) e.dataset.tabWalk = String(Math.random()); return e.dataset.tabWalk; })()"
        )
        if not key or key in seen:
            break
        seen.append(key)
        rings.append(page.evaluate(RING_CONTRAST_JS, page.evaluate_handle("document.activeElement")))
    return rings


def _assert_rings(page: Page, where: str) -> int:
    rings = _tab_walk(page)
    assert len(rings) >= 3, f"{where}: only {len(rings)} Tab stops"
    for ring in rings:
        assert ring["ring"], f"{where}: {ring['name']} shows no focus ring"
        assert ring["min"] is not None, f"{where}: nothing found under the ring of {ring['name']}"
        assert ring["min"] >= 3.0, f"{where}: the ring of {ring['name']} is {ring['min']:.2f}:1 on {ring['samples']}"
    return len({str(sample["bg"]) for ring in rings for sample in ring["samples"]})


def test_the_focus_ring_is_at_least_3_to_1_on_every_background_it_appears_on(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    base = live_server.url
    backgrounds = 0
    for viewport in (DESKTOP, PHONE):
        page.set_viewport_size(viewport)
        page.goto(f"{base}/?preset={PRESET}")
        expect(page.locator("article.candidate").first).to_be_visible()
        backgrounds += _assert_rings(page, f"workload {viewport['width']}")
        page.goto(f"{base}/accounts/login/")
        backgrounds += _assert_rings(page, f"login {viewport['width']}")
    login(page.context, factories.customer(username="ring"))
    page.set_viewport_size(DESKTOP)
    for path in ("/builds/new", "/quotes/", "/accounts/"):
        page.goto(f"{base}{path}")
        backgrounds += _assert_rings(page, path)
    # the walk met both the dark header and light surfaces (a walk that saw one colour proves little)
    assert backgrounds >= 2


def test_at_phone_width_a_live_answer_below_the_form_says_so_in_view(page: Page, live_server: Any) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/?preset={PRESET}")
    expect(page.locator("article.candidate").first).to_be_attached()
    link = page.locator("#results-updated")
    expect(link).to_be_hidden()
    users = page.get_by_label("Одновременных пользователей")
    users.scroll_into_view_if_needed()
    wanted = str(int(users.input_value()) + 2)
    users.fill(wanted)  # the live answer, no submit
    expect(page.locator("[data-users]")).to_have_attribute("data-users", wanted)
    expect(page.locator("#results-title")).not_to_be_in_viewport()  # the answer is below the form here
    expect(link).to_be_visible()
    expect(link).to_be_in_viewport()
    expect(link).to_have_text("Ответ обновлён ↓")
    expect(users).to_be_focused()  # the link does not take the typing away
    if conftest.TAKE_SCREENSHOTS:  # the window as the phone shows it, with the link in view
        page.screenshot(path=str(conftest.SCREENSHOTS / "workload-answer-updated-ru-390.png"))
    link.click()
    expect(page.locator("#results-title")).to_be_in_viewport()
    expect(page.locator("#results-title")).to_be_focused()
    expect(link).to_be_hidden()


def test_at_desktop_width_the_answer_beside_the_form_needs_no_link(page: Page, live_server: Any) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/?preset={PRESET}")
    expect(page.locator("article.candidate").first).to_be_visible()
    users = page.get_by_label("Одновременных пользователей")
    wanted = str(int(users.input_value()) + 2)
    users.fill(wanted)
    expect(page.locator("[data-users]")).to_have_attribute("data-users", wanted)
    expect(page.locator("#results-title")).to_be_in_viewport()
    expect(page.locator("#results-updated")).to_be_hidden()


def test_the_menu_wraps_on_a_phone_instead_of_cutting_an_item(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    login(page.context, factories.sales(username="menu"))  # the longest menu: sales see the purchase lists too
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/quotes/")
    nav = page.locator(".site-nav")
    assert page.evaluate("(n) => n.scrollWidth <= n.clientWidth", nav.element_handle())
    links = nav.locator("a")
    assert links.count() >= 6
    for index in range(links.count()):
        box = links.nth(index).bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], links.nth(index).inner_text()
        # what is under the link's middle is the link itself, not something covering a cut end
        assert links.nth(index).evaluate(
            "(a) => { const b = a.getBoundingClientRect();"
            " return a.contains(document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)); }"
        )
    expect(links.last).to_have_text("Закупки")  # the last item, whole


def test_the_skip_link_lands_in_the_model_field(page: Page, live_server: Any) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/")
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    expect(skip).to_have_text("Перейти к полю модели")
    page.keyboard.press("Enter")
    model = page.locator("#id_model")
    stops = 0
    while stops < 3 and not model.evaluate("(m) => m === document.activeElement"):
        page.keyboard.press("Tab")
        stops += 1
    expect(model).to_be_focused()
    page.keyboard.type("llama-3.1-7")  # typing goes straight into the field
    expect(model).to_have_value("llama-3.1-7")


def test_the_suggestion_list_closes_on_pick_and_stays_closed(page: Page, live_server: Any) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/")
    model = page.locator("#id_model")
    model.fill("llama-3.1-7")
    option = page.locator("[data-pick-model='llama-3.1-70b']")
    expect(option).to_be_visible()
    searches: list[str] = []
    page.on("request", lambda request: searches.append(request.url) if "search" in request.url else None)
    option.click()
    expect(model).to_have_value("Llama 3.1 70B")
    expect(page.locator("#model-slug")).to_have_value("llama-3.1-70b")
    expect(model).to_be_focused()
    # the pick asks for the answer at once; once it is here, any search the refocus sent has been sent too
    expect(page.locator("#results-title")).to_contain_text("Llama")
    expect(page.locator("#model-options")).to_be_empty()
    assert not [url for url in searches if re.search(r"model", url)], searches
    # leaving the field and coming back to the picked name does not reopen the list either
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    expect(model).to_be_focused()
    page.get_by_label("Одновременных пользователей").fill("3")
    expect(page.locator("[data-users]")).to_have_attribute("data-users", "3")
    expect(page.locator("#model-options")).to_be_empty()
    # typing again searches again
    model.fill("qwen")
    expect(page.locator("#model-options [data-pick-model]").first).to_be_visible()
