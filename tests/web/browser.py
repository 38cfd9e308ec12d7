"""browser: Debian's headless Chromium driven through Selenium and chromedriver
(python3-selenium, chromium-driver), for tests/web/test_web.py.

It replaces cdp.py, which spoke the DevTools protocol over a pipe on file descriptors
3 and 4 by hand and lost descriptor 3 when reused from a fresh script (issue 46,
item 8). WebDriver does the page's work (scripts, mouse, keyboard, navigation);
chromedriver's CDP passthrough does the two things WebDriver has no command for: a
viewport of an exact size and a screenshot of a clip of the page beyond the viewport.
The page's network requests are read from chromedriver's performance log.
Every wait is bounded; close() ends the driver and the browser it started.
"""
import base64
import json
import shutil
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder

# The flags a closed machine needs (no sandbox as root, no GPU, no calls home: the
# page's own requests are then the only ones, which the test checks; shared memory
# in /tmp, as a container's /dev/shm may be too small).
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--hide-scrollbars", "--disable-dev-shm-usage"]


def find_chromium():
    """(Chromium, chromedriver) executables, or None when either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page, driven by chromedriver."""

    def __init__(self, executables, width=1400, height=1000, timeout_s=30):
        chromium, driver = executables
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in FLAGS + ["--window-size=%d,%d" % (width, height)]:
            opts.add_argument(flag)
        opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.events = []  # Network.requestWillBeSent events, in order
        self.driver = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
        self.driver.set_page_load_timeout(timeout_s)
        self.driver.set_script_timeout(60)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def js(self, expression, timeout_s=60):
        """Evaluates expression in the page (chromedriver awaits a promise) and returns
        its value (JSON-serialisable values only); a thrown exception becomes
        BrowserError."""
        self.driver.set_script_timeout(timeout_s)
        try:
            return self.driver.execute_script("return (%s\n);" % expression)
        except WebDriverException as e:
            raise BrowserError("page threw: %s" % (e.msg or e)) from None

    def wait_for(self, expression, timeout_s, what):
        """Polls expression until it is truthy; returns its value. While a page
        loads, its context may vanish under an evaluation: that is polled again."""
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            try:
                v = self.js(expression)
                if v:
                    return v
            except BrowserError as e:
                last = e
            time.sleep(0.05)
        raise BrowserError("timed out after %d s waiting for %s (last error: %s)"
                           % (timeout_s, what, last))

    def navigate(self, url):
        """Loads url; returns once the document has loaded (WebDriver's 'normal'
        page-load strategy), which the callers' wait_for then builds on."""
        self._drain_log()
        self.driver.get(url)

    def mouse_move(self, x, y):
        """Moves the mouse to (x, y), viewport coordinates."""
        a = ActionBuilder(self.driver)
        a.pointer_action.move_to_location(int(round(x)), int(round(y)))
        a.perform()

    def click(self, x, y):
        """A left click at (x, y), viewport coordinates."""
        a = ActionBuilder(self.driver)
        a.pointer_action.move_to_location(int(round(x)), int(round(y)))
        a.pointer_action.click()
        a.perform()

    def insert_text(self, text):
        """Types text at the focused element's cursor, as a keyboard would (replacing
        its selection)."""
        ActionChains(self.driver).send_keys(text).perform()

    def screenshot(self, path, clip=None):
        """A PNG of the page, or of clip {x, y, width, height} in page coordinates."""
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = dict(clip, scale=1)
        data = base64.b64decode(
            self.driver.execute_cdp_cmd("Page.captureScreenshot", params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def _drain_log(self):
        for entry in self.driver.get_log("performance"):
            m = json.loads(entry["message"])["message"]
            if m.get("method") == "Network.requestWillBeSent":
                self.events.append(m)

    def requested_urls(self):
        """Every URL the page asked the network for so far."""
        self._drain_log()
        return [e["params"]["request"]["url"] for e in self.events]

    def close(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
