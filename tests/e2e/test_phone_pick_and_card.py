"""A customer trial of issue 37 at 390 px: the "Ответ обновлён ↓" link covered the next field's label; the
model suggestions opened below the window; a picked model showed as its slug; a result card took three
warranties at once."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e import conftest

PHONE: ViewportSize = {"width": conftest.PHONE["width"], "height": conftest.PHONE["height"]}
OVERLAP_JS = """([a, b]) => { const x = a.getBoundingClientRect(), y = b.getBoundingClientRect();
  return x.left < y.right && y.left < x.right && x.top < y.bottom && y.top < x.bottom; }"""


def _shot(page: Page, name: str) -> None:
    if conftest.TAKE_SCREENSHOTS:
        conftest.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(conftest.SCREENSHOTS / f"{name}.png"))


def test_the_answer_link_leaves_the_edited_field_and_the_next_label_clear(page: Page, live_server: Any) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/?preset=70b-team")
    expect(page.locator("article.candidate").first).to_be_attached()
    users = page.get_by_label("Одновременных пользователей")
    # the field just above where the link appears, as the trial's phone had it
    page.evaluate("(u) => window.scrollBy(0, u.getBoundingClientRect().bottom - window.innerHeight + 70)",
                  users.element_handle())  # fmt: skip
    users.fill(str(int(users.input_value()) + 2))
    link = page.locator("#results-updated")
    expect(link).to_be_visible()
    page.wait_for_timeout(200)
    field = users.locator("xpath=ancestor::div[contains(@class,'field')][1]")
    next_label = field.locator("xpath=following-sibling::*[1]").locator("label").first
    _shot(page, "f37-answer-link-ru-390")
    for element in (field, next_label):
        assert not page.evaluate(OVERLAP_JS, [link.element_handle(), element.element_handle()]), element
    expect(users).to_be_focused()


def test_suggestions_open_in_view_and_a_pick_shows_the_name_and_submits_the_slug(page: Page, live_server: Any) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/")
    model = page.locator("#id_model")
    # the field at the bottom of the window, as a phone shows it after scrolling the presets
    page.evaluate("(m) => window.scrollBy(0, m.getBoundingClientRect().bottom - window.innerHeight + 4)",
                  model.element_handle())  # fmt: skip
    model.click()
    model.type("gemma 3 27")
    option = page.locator("[data-pick-model='gemma-3-27b']")
    expect(option).to_be_visible()
    expect(option).to_be_in_viewport()
    expect(page.locator("label[for='id_model']")).to_be_in_viewport()  # the field's label scrolled in too
    expect(option.locator(".model-option__name")).to_contain_text("Gemma")
    expect(option.locator(".sku")).to_have_text("gemma-3-27b")  # the slug small and secondary
    _shot(page, "f37-suggestions-ru-390")
    option.click()
    name = page.locator("#model-slug")
    expect(name).to_have_value("gemma-3-27b")
    expect(name).to_have_attribute("name", "model")
    value = model.input_value()
    assert value != "gemma-3-27b" and "Gemma" in value, value
    option_name = value
    # the live answer re-renders the form: the field still shows the name, the slug is what was sent
    expect(page.locator("[data-users]").first).to_be_attached()
    page.wait_for_timeout(600)
    expect(page.locator("#id_model")).to_have_value(option_name)
    expect(page.locator("#model-slug")).to_have_value("gemma-3-27b")
    _shot(page, "f37-picked-ru-390")
    # typing again makes the field the query once more
    page.locator("#id_model").fill("llama")
    expect(page.locator("#model-slug")).to_have_count(0)
    expect(page.locator("#id_model")).to_have_attribute("name", "model")


def test_a_card_takes_one_warranty_and_one_delivery(page: Page, live_server: Any) -> None:
    from servicelines.services import services_load_fixture

    services_load_fixture()
    page.goto(f"{live_server.url}/?preset=70b-team")
    box = page.locator("[data-request-box]").first
    box.locator("summary").click()
    warranties = box.locator("input[data-one-of='warranty']")
    assert warranties.count() == 3
    for index in range(3):
        warranties.nth(index).check()
    assert box.locator("input[data-one-of='warranty']:checked").count() == 1
    expect(warranties.nth(2)).to_be_checked()
    deliveries = box.locator("input[data-one-of='delivery']")
    deliveries.nth(0).check()
    deliveries.nth(1).check()
    assert box.locator("input[data-one-of='delivery']:checked").count() == 1
    software = box.locator("input[value='software-ai-stack']")
    software.check()
    expect(software).to_be_checked()  # a kind sold any number of times is left alone
