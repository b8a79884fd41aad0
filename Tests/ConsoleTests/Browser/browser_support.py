"""What the console's browser walks share: Chromium driven by Selenium, the steps people take
(fill, click, wait), screenshots and axe-core's accessibility check.

Each walk script is run by a Swift test with one argument, a JSON file of settings; it prints
"OK step step ..." when every step passed, and exits 1 with the failed step on stderr otherwise.
"""
import json
import os
import sys

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


class Walk:
    def __init__(self, config, prefix):
        self.config = config
        self.prefix = prefix
        self.artifacts = config["artifacts"]
        os.makedirs(self.artifacts, exist_ok=True)
        self.axe_source = open(config["axe"]).read() if config.get("axe") else None
        self.accessibility = {}
        self.steps = []
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
                         "--no-first-run", "--disable-extensions", "--user-data-dir=" + config["profile"]] + config.get("chromiumArguments", []):
            options.add_argument(argument)
        if config.get("downloads"):
            # Files the pages download go there without asking.
            options.add_experimental_option("prefs", {
                "download.default_directory": config["downloads"], "download.prompt_for_download": False})
        if config.get("networkLog"):
            # Chromium's own record of the requests it sends (read with requests_seen).
            options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        # The driver is given explicitly, so Selenium never tries to download one.
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.base = config["link"].split("/?")[0]

    def fail(self, message):
        print("FAILED: " + message, file=sys.stderr)
        try:
            self.driver.save_screenshot(os.path.join(self.artifacts, "%s-failure.png" % self.prefix))
            with open(os.path.join(self.artifacts, "%s-failure.html" % self.prefix), "w") as page:
                page.write(self.driver.page_source)
        except Exception:
            pass
        sys.exit(1)

    def check(self, condition, message):
        if not condition:
            self.fail(message)

    def open(self, path):
        self.driver.get(self.base + path)

    def text(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector).text

    def exists(self, selector):
        return bool(self.driver.find_elements(By.CSS_SELECTOR, selector))

    def notices(self):
        return " | ".join(element.text for element in self.driver.find_elements(By.CSS_SELECTOR, "#notices .notice"))

    def heading(self):
        return self.text("h1")

    def click_button(self, label, within=None):
        scope = self.driver.find_element(By.CSS_SELECTOR, within) if within else self.driver
        for button in scope.find_elements(By.CSS_SELECTOR, "button"):
            if button.text.strip() == label:
                button.click()
                return
        self.fail("no button '%s' on %s" % (label, self.driver.current_url))

    def requests_seen(self, fragment):
        """Whether Chromium sent a request whose URL contains `fragment` (needs "networkLog")."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent" and fragment in message["params"]["request"]["url"]:
                return True
        return False

    def fill(self, selector, value):
        element = self.driver.find_element(By.CSS_SELECTOR, selector)
        element.clear()
        if len(value) > 2000:
            # send_keys types one key at a time: long values are set directly, as a paste would.
            self.driver.execute_script("arguments[0].value = arguments[1];", element, value)
        else:
            element.send_keys(value)

    def shot(self, name):
        """A screenshot of the whole page."""
        driver = self.driver
        height = driver.execute_script("return document.documentElement.scrollHeight")
        width = driver.get_window_size()["width"]
        driver.set_window_size(width, max(600, min(height + 140, 6000)))
        driver.save_screenshot(os.path.join(self.artifacts, "%s-%s.png" % (self.prefix, name)))
        driver.set_window_size(width, 1000)

    def axe(self, name):
        """axe-core on the page as shown: no serious or critical violation."""
        if self.axe_source is None:
            return
        self.driver.execute_script(self.axe_source)
        violations = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => "
            "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))))"
            ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));")
        self.accessibility[name] = violations
        bad = [v for v in violations if v["impact"] in ("serious", "critical")]
        self.check(not bad, "accessibility of %s: %s" % (name, json.dumps(bad)))

    def wait_for(self, description, condition, timeout=20):
        def settled():
            # Chromium sometimes reports an element of the page being replaced not as stale but
            # as an inspector error: the node "does not belong to the document". Not yet, too.
            try:
                return condition()
            except WebDriverException as error:
                if "does not belong to the document" in str(error):
                    return False
                raise
        try:
            # A page being replaced (after a click) has elements that go stale or are not there yet.
            WebDriverWait(self.driver, timeout, poll_frequency=0.2,
                          ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(lambda _: settled())
        except TimeoutException:
            self.fail("timed out waiting for " + description + " on " + self.driver.current_url)

    def fits_phone(self, path):
        """The page at a phone's width: nothing wider than the screen."""
        self.driver.set_window_size(390, 844)
        self.open(path)
        overflow = self.driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.check(overflow <= 1, "%s fits a phone's width (%d px too wide)" % (path, overflow))
        self.driver.save_screenshot(os.path.join(self.artifacts, "%s%s-phone.png" % (self.prefix, path.replace("/", "-"))))
        self.driver.set_window_size(1280, 1000)

    def finish(self):
        with open(os.path.join(self.artifacts, "%s-accessibility.json" % self.prefix), "w") as report:
            json.dump(self.accessibility, report, indent=2)
        self.driver.quit()


def find(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)
