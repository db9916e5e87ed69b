"""Headless Chromium for the build and the tests, through Playwright's Python API.

Playwright (the `playwright` wheel, whose driver ships inside it) drives Debian's `chromium` by
`executable_path`: no browser is downloaded, which these machines could not do. What this module adds
is what Playwright leaves to its caller: finding the system binary, launch flags that keep a page
offline (every host name resolves to nothing, so a page that reaches for a CDN fails visibly), and a
deadline on a page script, which Playwright's `evaluate` does not have.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

CHROMIUM_HINT = "headless checks need Debian chromium: apt-get install -y chromium fonts-noto-cjk"
PLAYWRIGHT_HINT = "headless checks need Playwright's Python API: pip install -r requirements.txt"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


class BrowserUnavailable(Exception):
    """Chromium or Playwright is missing, or Chromium would not start; the message says why."""


class BrowserTimeout(Exception):
    """A page script ran past its deadline."""


def find_chromium() -> str:
    """Path of a Chromium binary ($CHROMIUM first); BrowserUnavailable when there is none."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        path = name and shutil.which(name)
        if path:
            return path
    raise BrowserUnavailable(CHROMIUM_HINT)


def missing() -> str | None:
    """The install hint for what launch() needs and lacks, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return PLAYWRIGHT_HINT
    try:
        find_chromium()
    except BrowserUnavailable as e:
        return str(e)
    return None


@contextmanager
def launch(timeout_s: float = 60):
    """A Playwright Browser on the system Chromium, closed (and its process ended) on exit."""
    why = missing()
    if why:
        raise BrowserUnavailable(why)
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(
                executable_path=find_chromium(), args=FLAGS, timeout=timeout_s * 1000
            )
        except Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else "no message"
            reason = "timed out" if "Timeout" in first else first
            raise BrowserUnavailable(
                f"chromium did not start ({reason}); {CHROMIUM_HINT}"
            ) from None
        try:
            yield browser
        finally:
            browser.close()


_RACE = """async ([body, arg, ms]) => {
  const run = new Function("arg", "return (" + body + ")(arg);");
  let timer;
  const late = new Promise(done => { timer = setTimeout(() => done({__late: true}), ms); });
  try { return await Promise.race([Promise.resolve().then(() => run(arg)), late]); }
  finally { clearTimeout(timer); }
}"""


def evaluate(page, function: str, arg=None, timeout_s: float = 30):
    """page.evaluate(function, arg), raising BrowserTimeout once timeout_s has passed.

    function is JavaScript source of a function of one argument (it may return a promise).
    """
    if timeout_s <= 0:
        raise BrowserTimeout("timed out")
    result = page.evaluate(_RACE, [function, arg, int(timeout_s * 1000)])
    if isinstance(result, dict) and result.get("__late"):
        raise BrowserTimeout("timed out")
    return result
