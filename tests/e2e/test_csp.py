"""The pages under their Content-Security-Policy in a real browser: no violation is reported while the
workload search (htmx), the model picker and the build editor run, and the bars get their widths from
their data attributes (static/js/app.js), the only way left to size them without inline styles."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.e2e.test_flows import _find_builds


def _watch_violations(page: Page) -> list[str]:
    seen: list[str] = []
    page.on(
        "console",
        lambda message: seen.append(message.text) if "Content Security Policy" in message.text else None,
    )
    return seen


def test_the_workload_search_runs_without_a_policy_violation(page: Page, live_server: Any) -> None:
    violations = _watch_violations(page)
    _find_builds(page, live_server.url)
    response = page.request.get(f"{live_server.url}/")
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    page.locator("article.candidate details.card__details > summary").first.click()
    weights = page.locator("article.candidate .stack__seg.seg--weights").first
    declared = weights.get_attribute("data-width")
    assert declared is not None and declared.endswith("%")
    assert float(weights.evaluate("element => element.style.width").rstrip("%")) == float(declared.rstrip("%"))
    assert weights.evaluate("element => element.getBoundingClientRect().width") > 0
    meter = page.locator(".meter__fill").first
    expect(meter).to_have_attribute("data-width", meter.get_attribute("data-width") or "missing")
    assert meter.evaluate("element => element.style.width") != ""
    assert violations == []


def test_the_api_docs_render_offline_without_a_policy_violation(page: Page, live_server: Any) -> None:
    """/api/v1/docs/ with every request to another host refused (as on a machine without internet): Swagger UI
    comes from this site's /static/ (drf-spectacular-sidecar), renders the API's title and its operations, and
    the browser reports no Content-Security-Policy violation."""
    violations = _watch_violations(page)
    elsewhere: list[str] = []

    def offline(route: Any) -> None:
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", offline)
    page.goto(f"{live_server.url}/api/v1/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("GPU workstation and server configurator API")
    expect(page.locator(".swagger-ui .opblock-summary-path").first).to_be_visible()
    assert page.locator(".swagger-ui .opblock").count() > 20
    assert elsewhere == [] and violations == []
