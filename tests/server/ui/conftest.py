"""Fixtures of the browser tests: Debian's Chromium driven by Playwright.

The browser is started once per test module; each test gets a fresh context
and page, and fails if the page raised an uncaught error. Every test here is
skipped, with the reason, when /usr/bin/chromium is missing (CI installs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.ui.uihelp import CHROMIUM, chromium_missing, launch


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if chromium_missing():
        pytest.skip(f"{CHROMIUM} is missing (CI installs the chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"
