"""Issue 16's acceptance in a real browser: the workload answer beside the question and live, the editor that
keeps its state and offers only parts that fit, keyboard-only use, and screenshots in Russian and English."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote as urlquote

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, ViewportSize, expect

from tests import factories
from tests.builds import TOO_FEW_PSUS

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PRESET = "70b-team"


@pytest.fixture
def offers() -> None:
    """The sample suppliers' offers, so builds have ship dates."""
    from procurement.services import offers_load_fixture

    offers_load_fixture()


def _preset(page: Page, base: str) -> None:
    page.set_viewport_size(LAPTOP)
    page.goto(f"{base}/")
    page.locator(f"a[data-preset='{PRESET}']").click()
    expect(page.locator("article.candidate").first).to_be_visible()


def test_a_preset_shows_its_answer_without_scrolling_and_without_a_reload(
    page: Page, live_server: Any, offers: None
) -> None:
    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/")
    page.evaluate("window.__samePage = true")
    page.locator(f"a[data-preset='{PRESET}']").click()
    first = page.locator("article.candidate").first
    expect(first.locator("h3")).to_be_in_viewport()
    expect(first.locator("[data-price]")).to_be_in_viewport()
    expect(first.locator("[data-ships-in]")).to_be_in_viewport()
    expect(first.locator("[data-ships-in]")).to_have_attribute("data-ships-in", re.compile(r"^\d+$"))
    ships = re.compile(r"отгрузка \d\d\.\d\d\.\d{4}, через \d+ рабоч\S* д")  # calendar date first
    expect(first.locator("[data-ships-in]")).to_contain_text(ships)
    expect(page.locator(".table--compare")).to_be_visible()
    # the form is beside the answer on a wide screen, filled with the preset
    form_box = page.locator("form.workload-form").bounding_box()
    results_box = page.locator("#results").bounding_box()
    assert form_box is not None and results_box is not None
    assert form_box["x"] + form_box["width"] <= results_box["x"]
    expect(page.locator("#id_model")).not_to_have_value("")
    assert page.evaluate("window.__samePage === true")  # no page load
    expect(page).to_have_url(re.compile(r"[?&]model="))
    # the card is titled by the product's catalog name, not its SKU
    expect(first.locator("h3")).not_to_contain_text(re.compile(r"\b[a-z0-9]+(-[a-z0-9]+){2,}\b"))  # a SKU
    expect(first.locator("h3")).to_contain_text(re.compile(r"\d+ × \S"))


def test_changing_users_updates_the_answer_and_the_address(page: Page, live_server: Any) -> None:
    _preset(page, live_server.url)
    page.evaluate("window.__samePage = true")
    users = page.get_by_label("Одновременных пользователей")
    before = users.input_value()
    wanted = str(int(before) + 3)
    users.fill(wanted)  # no submit: the answer follows the input
    expect(page.locator("[data-users]")).to_have_attribute("data-users", wanted)
    expect(page).to_have_url(re.compile(rf"[?&]concurrent_users={wanted}(&|$)"))
    assert page.evaluate("window.__samePage === true")
    expect(users).to_be_focused()  # typing goes on where it was
    expect(page.locator("#results-announce")).to_contain_text("сборки для")  # said in one line
    # the address is the answer: loading it shows the same inputs and builds
    page.goto(page.url)
    expect(page.get_by_label("Одновременных пользователей")).to_have_value(wanted)
    expect(page.locator("article.candidate").first).to_be_visible()


def test_a_newer_live_request_does_not_wait_for_an_older_one(page: Page, live_server: Any) -> None:
    """Two live answers asked in a row: the newer request replaces the older one in flight (hx-sync on the
    form) instead of queueing behind it, so the answer to the inputs shown comes without waiting for one to
    inputs already changed, and the older answer, should it come back last, is not shown over it."""
    _preset(page, live_server.url)
    users = page.get_by_label("Одновременных пользователей")
    before = int(users.input_value())
    held: list[Any] = []

    def hold_first(route: Any) -> None:
        if not held:
            held.append(route)  # answered below, after the newer request's answer is on the page
        else:
            route.continue_()

    page.route(re.compile(r"/$"), hold_first)
    users.fill(str(before + 1))  # the older request: held
    for _ in range(50):  # the route handler runs while Playwright waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "no live request was sent for the first change"
    newer = str(before + 4)
    users.fill(newer)  # the newer request: answered
    expect(page.locator("[data-users]")).to_have_attribute("data-users", newer)
    with contextlib.suppress(PlaywrightError):  # raised when the page has aborted the older request
        held[0].fulfill(response=held[0].fetch())  # the older answer comes back last
    page.wait_for_timeout(1500)
    expect(page.locator("[data-users]")).to_have_attribute("data-users", newer)
    expect(page).to_have_url(re.compile(rf"[?&]concurrent_users={newer}(&|$)"))


def test_the_speed_on_the_card_is_the_speed_in_the_editor(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    login(page.context, factories.sales(username="sam"))
    _preset(page, live_server.url)
    card = page.locator("article.candidate").first
    speed = page.locator(".table--compare td[data-speed]").first.inner_text()
    card.get_by_role("link", name="Открыть в редакторе").click()
    expect(page.locator("#verdict [data-verdict='valid']")).to_be_visible()
    editor_speed = page.locator("#verdict [data-speed]").inner_text()
    assert speed.split()[0] == editor_speed.split()[0]


def test_the_editor_keeps_an_applied_fix_across_a_reload(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    login(page.context, factories.sales(username="sam"))
    page.goto(f"{live_server.url}/builds/new?build={urlquote(json.dumps(TOO_FEW_PSUS))}")
    verdict = page.locator("#verdict")
    expect(verdict.locator("[data-verdict='invalid']")).to_be_visible()
    qty = page.locator("#id_psus-0-qty")
    before = qty.input_value()
    power = verdict.locator(".finding", has_text="Не хватает мощности блоков питания")
    power.get_by_role("button", name=re.compile(r"^Применить")).first.click()
    expect(page.locator("#verdict [data-verdict='valid']")).to_be_visible()
    after = qty.input_value()
    assert after != before
    expect(page).to_have_url(re.compile(r"/builds/new\?build="))

    dialogs: list[str] = []

    def accept(dialog: Any) -> None:
        dialogs.append(dialog.type)
        dialog.accept()

    page.on("dialog", accept)
    page.reload()
    assert dialogs == ["beforeunload"]  # leaving unsaved work asks first
    expect(page.locator("#id_psus-0-qty")).to_have_value(after)
    expect(page.locator("#verdict [data-verdict='valid']")).to_be_visible()


def test_an_sxm_module_is_not_selectable_in_a_pcie_chassis(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    login(page.context, factories.sales(username="sam"))
    page.goto(f"{live_server.url}/builds/new")
    page.get_by_role("combobox", name="Платформа", exact=True).select_option("srv-8gpu-4u-epyc")
    page.locator("button[value='add:gpus']").click()
    line = page.locator("#id_gpus-0-sku")
    expect(line).to_be_focused()
    sxm = line.locator("option[value='h200-sxm']")
    expect(sxm).to_be_disabled()
    expect(sxm).to_have_attribute("title", re.compile("SXM"))
    expect(sxm).to_contain_text("не подходит")
    expect(line.locator("option[value='h200-nvl']")).to_be_enabled()
    # each line names its key figures and price
    expect(line.locator("option[value='h200-nvl']")).to_contain_text(re.compile(r"141 ГБ.*₽"))
    # the search narrows the list
    page.get_by_label("Поиск: Видеокарты").fill("H200")
    visible = line.evaluate("s => Array.from(s.options).filter(o => !o.hidden && o.value).map(o => o.value)")
    assert visible and all("h200" in sku for sku in visible)
    # in an HGX chassis it is the other way round
    page.get_by_role("combobox", name="Платформа", exact=True).select_option("srv-hgx-h200-5u")
    page.locator("button[value='add:gpus']").click()
    line = page.locator("#id_gpus-1-sku")
    expect(line.locator("option[value='h200-sxm']")).to_be_enabled()
    expect(line.locator("option[value='h200-nvl']")).to_be_disabled()


def test_keyboard_only_walk_of_the_workload_page(page: Page, live_server: Any) -> None:
    page.set_viewport_size(LAPTOP)
    page.goto(f"{live_server.url}/")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.getAttribute('data-preset') === '{PRESET}'"):
            break
    else:
        raise AssertionError("the preset is not reachable with Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#results-title")).to_be_focused()
    expect(page.locator("article.candidate").first).to_be_in_viewport()
    # on from the answer: the comparison, then the first card's details open with the keyboard
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('details.card__details > summary')"):
            break
    else:
        raise AssertionError("the card's details are not reachable with Tab")
    page.keyboard.press("Enter")
    expect(page.locator("details.card__details").first).to_have_attribute("open", "")


def test_keyboard_only_walk_of_the_editor(page: Page, live_server: Any, login: Callable[..., None]) -> None:
    login(page.context, factories.sales(username="sam"))
    page.goto(f"{live_server.url}/builds/new?build={urlquote(json.dumps(TOO_FEW_PSUS))}")
    expect(page.locator("#verdict [data-verdict='invalid']")).to_be_visible()
    page.locator("#main").focus()
    for _ in range(150):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#verdict .finding button[name=op]')"):
            break
    else:
        raise AssertionError("no Apply button is reachable with Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict [data-verdict='valid']")).to_be_visible()


def _english(page: Page) -> None:
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_screenshots_of_the_workload_page_and_the_editor_in_both_languages(
    page: Page, live_server: Any, login: Callable[..., None], shoot: Callable[..., None], offers: None
) -> None:
    login(page.context, factories.sales(username="sam"))
    _preset(page, live_server.url)
    page.locator("details.card__details > summary").first.click()
    shoot(page, "workload-ru")
    editor = f"{live_server.url}/builds/new?build={urlquote(json.dumps(TOO_FEW_PSUS))}"
    page.goto(editor)
    expect(page.locator("#verdict [data-verdict='invalid']")).to_be_visible()
    shoot(page, "build-editor-ru")

    _english(page)
    expect(page.locator("#verdict [data-verdict='invalid']")).to_be_visible()
    shoot(page, "build-editor-en")
    _preset(page, live_server.url)
    page.locator("details.card__details > summary").first.click()
    shoot(page, "workload-en")
