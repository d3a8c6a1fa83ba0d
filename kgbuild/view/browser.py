"""Open view pages in headless Chromium: for the view benchmark, the browser tests and the
screenshot in the docs (docs/story-view.md).

Drives the system's Chromium with Selenium and the matching chromedriver (Debian: the packages
`chromium` and `chromium-driver`); nothing is downloaded. `KGBUILD_CHROMIUM` and
`KGBUILD_CHROMEDRIVER` name other binaries. Selenium comes with `kgbuild[dev]`.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgbuild.errors import KgbuildError

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

logger = logging.getLogger(__name__)

#: Flags for a headless Chromium that makes no network connection of its own.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--disable-extensions", "--hide-scrollbars")
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserMissingError(KgbuildError):
    """Chromium, its chromedriver or Selenium is not installed; the message says what to install."""


class PageTimeoutError(KgbuildError):
    """A page did not finish its first render in time."""


def find_chromium() -> tuple[Path, Path]:
    """The Chromium and chromedriver binaries: `KGBUILD_CHROMIUM` / `KGBUILD_CHROMEDRIVER`, else the
    first on PATH.

    Raises:
        BrowserMissingError: either is missing.
    """
    browser = os.environ.get("KGBUILD_CHROMIUM") or next(filter(None, map(shutil.which, _BROWSERS)), None)
    driver = os.environ.get("KGBUILD_CHROMEDRIVER") or shutil.which("chromedriver")
    missing = [name for name, path in (("chromium", browser), ("chromedriver", driver))
               if not path or not Path(path).is_file()]
    if missing or browser is None or driver is None:
        raise BrowserMissingError(
            f"{' and '.join(missing)} not found; install them (Debian: apt-get install chromium "
            "chromium-driver) or name them with KGBUILD_CHROMIUM and KGBUILD_CHROMEDRIVER")
    return Path(browser), Path(driver)


@contextmanager
def headless_chromium(*, width: int = 1400, height: int = 900) -> Iterator[WebDriver]:
    """A headless Chromium with a fresh profile, driven by Selenium; closed on exit.

    Args:
        width, height: The window size in CSS pixels.

    Yields:
        The Selenium driver; the browser's console messages are kept (`console_errors`).

    Raises:
        BrowserMissingError: Chromium, chromedriver or Selenium is not installed.
    """
    browser, driver_path = find_chromium()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        raise BrowserMissingError("Selenium is not installed; install kgbuild[dev] (pip install selenium)") from e
    options = webdriver.ChromeOptions()
    options.binary_location = str(browser)
    with tempfile.TemporaryDirectory(prefix="kgbuild-chromium-") as profile:
        for flag in (*CHROMIUM_FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(str(driver_path)), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def open_page(driver: WebDriver, page: Path, *, timeout: float = 60.0) -> float:
    """Load a view page from disk and wait for its first rendered frame.

    Args:
        driver: From `headless_chromium`.
        page: The HTML file.
        timeout: Seconds to wait for the first frame.

    Returns:
        Milliseconds from the start of navigation to the first frame the graph library drew.

    Raises:
        PageTimeoutError: no frame within `timeout` (the page's own errors are in the message).
    """
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + timeout
    while not driver.execute_script("return Boolean(window.kgview && window.kgview.ready)"):
        if time.monotonic() > deadline:
            errors = driver.execute_script("return window.kgview ? window.kgview.errors : ['no kgview']")
            raise PageTimeoutError(f"{page} did not render within {timeout:.0f} s; page errors: {errors}")
        time.sleep(0.02)
    value: Any = driver.execute_script("return window.kgview.firstRenderMs")
    return float(value)


def console_errors(driver: WebDriver) -> list[str]:
    """The browser console's errors (level SEVERE) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
