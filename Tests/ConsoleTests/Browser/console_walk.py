#!/usr/bin/env python3
"""Walks `pepper console` in a real browser (Chromium driven by Selenium), as a person would:
setup, lists and a list's categories, My rules, DNS, allowlist.

Run by ConsoleBrowserTests with one argument, a JSON file:
  {"link", "listURL", "servicesURL", "dnsAddress", "dnsPort", "dig", "artifacts", "axe", "profile"}
Every step asserts what the person would see; screenshots and the accessibility report
(axe-core: no serious or critical violation allowed) go to `artifacts` (browser_support.py).
"""
import json
import os
import subprocess
import sys
import time

from browser_support import Walk
from selenium.webdriver.common.by import By

config = json.load(open(sys.argv[1]))
walk = Walk(config, "console")
driver = walk.driver
check, fill, click_button, notices, heading, text, shot, axe, wait_for = (
    walk.check, walk.fill, walk.click_button, walk.notices, walk.heading, walk.text, walk.shot, walk.axe, walk.wait_for)


def dig(name):
    output = subprocess.run([config["dig"], "@127.0.0.1", "-p", str(config["dnsPort"]), name, "A", "+tries=1", "+time=2"],
                            capture_output=True, text=True).stdout
    status = output.split("status: ")[1].split(",")[0] if "status: " in output else None
    answers = [line.split()[-1] for line in output.split("\n")
               if line and not line.startswith(";") and "\tA\t" in line]
    return status, answers


steps = walk.steps
try:
    base = walk.base

    # 1. The printed link opens the onboarding.
    driver.get(config["link"])
    wait_for("the setup page", lambda: heading() == "Set up Pepper")
    check(driver.current_url == base + "/setup", "the link leads to the setup, not " + driver.current_url)
    check(driver.get_cookie("pepper_console")["httpOnly"], "the session cookie is HttpOnly")
    axe("setup")
    # The onboarding's animation (the app's Lottie animation as SVG): the console's own file, drawn,
    # with no script from anywhere; the screenshot once its 3 seconds are over (its last frame).
    image = driver.find_element(By.ID, "onboarding-animation")
    check(image.get_attribute("src") == base + "/assets/onboarding.svg", "the animation is the console's: " + image.get_attribute("src"))
    check(driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image) == 200, "the animation is drawn")
    sources = driver.execute_script("return Array.from(document.scripts).map(s => s.src)")
    check(all(source.startswith(base + "/") for source in sources), "only the console's own scripts: %s" % sources)
    time.sleep(3.2)
    shot("setup")
    # The animation plays: alone in the window, its first moment and its end differ.
    walk.open("/assets/onboarding.svg")
    first = driver.get_screenshot_as_png()
    driver.save_screenshot(os.path.join(walk.artifacts, "console-onboarding-start.png"))
    time.sleep(3.2)
    driver.save_screenshot(os.path.join(walk.artifacts, "console-onboarding-end.png"))
    check(driver.get_screenshot_as_png() != first, "the setup page's animation does not move")
    walk.open("/setup")
    wait_for("the setup page again", lambda: heading() == "Set up Pepper")
    # No built-in list: they would be downloaded from the internet.
    for name in ("easylist", "easyprivacy"):
        box = driver.find_element(By.ID, "list-" + name)
        if box.is_selected():
            box.click()
    # The choice is answered at once; it runs (downloads, rebuild) on Update now's page.
    click_button("Use these lists")
    wait_for("the update page", lambda: heading() == "Update now")
    wait_for("the choice's end", lambda: text("#progress-title") == "Last update", timeout=60)
    wait_for("the lists notice", lambda: "Using no built-in list" in notices())
    walk.open("/setup")
    wait_for("the setup page", lambda: heading() == "Set up Pepper")
    check(not driver.find_element(By.ID, "list-easylist").is_selected(), "easylist is off")
    steps.append("setup")

    # 2. The live DNS check against the running pepper dns serve.
    fill("#dns-address", config["dnsAddress"])
    click_button("Check now")
    wait_for("the DNS check's notice", lambda: "answers" in notices() or "error" in notices().lower(), timeout=30)
    check("Pepper's DNS filter on %s answers" % config["dnsAddress"] in notices(), "DNS check: " + notices())
    steps.append("dns-check")

    # 3. GNOME Web: Pepper's lists, confirmed by reading the settings back.
    click_button("Use Pepper's lists in GNOME Web")
    wait_for("GNOME Web's state", lambda: text("#gnome-web-state").startswith("Installed"))
    check("GNOME Web now loads Pepper's" in notices(), "GNOME Web notice: " + notices())
    steps.append("gnome-web")

    # 4. DuckDuckGo, once.
    click_button("Use DuckDuckGo")
    wait_for("the search notice", lambda: "DuckDuckGo is the search engine of Pepper's browser and GNOME Web" in notices())
    check(not [b for b in driver.find_elements(By.CSS_SELECTOR, "button") if b.text == "Use DuckDuckGo"], "the suggestion is gone")
    shot("setup-done")
    click_button("Finish setting up")
    wait_for("the start page", lambda: heading() == "Start")
    check("Pepper is set up" in notices(), "finish notice: " + notices())
    check("running on " + config["dnsAddress"] in text("dl.facts"), "the start page shows the running DNS filter")
    axe("start")
    shot("start")
    steps.append("start")

    # 5. Lists: add one served by a local list server, then Update now with live progress.
    driver.get(base + "/lists")
    fill("#add-url", config["listURL"])
    fill("#add-name", "extra")
    click_button("Add the list")
    wait_for("the added list", lambda: "Added extra" in notices())
    click_button("Update now")
    wait_for("the update page", lambda: heading() == "Update now")
    wait_for("the update's end", lambda: text("#progress-title") == "Last update", timeout=60)
    rows = {row.find_element(By.TAG_NAME, "th").text: row.find_element(By.TAG_NAME, "td").text
            for row in driver.find_elements(By.CSS_SELECTOR, "#update-table tbody tr")}
    check("extra" in rows, "the update lists 'extra': %s" % rows)
    check(rows["extra"].startswith("new copy") or rows["extra"].startswith("not modified"), "extra: " + rows["extra"])
    check(sorted(rows) == ["extra"], "only the enabled list is updated: %s" % rows)
    axe("update")
    shot("update")
    driver.get(base + "/lists")
    check("extra" in text("ul.lists"), "the catalogue shows extra")
    axe("lists")
    shot("lists")
    steps.append("lists")

    # 5b. A Disconnect list's categories: the tracking ones are chosen by default, not Content;
    # a person blocks Content and stops blocking Advertising, with a checkbox each.
    fill("#add-url", config["servicesURL"])
    fill("#add-name", "services")
    click_button("Add the list")
    wait_for("the added services list", lambda: "Added services" in notices())
    details = driver.find_element(By.CSS_SELECTOR, "details.categories")
    check("Categories: 2 of 3 blocked (the default)" in details.text, "the summary: " + details.text)
    details.find_element(By.TAG_NAME, "summary").click()
    boxes = {box.get_attribute("value"): box for box in details.find_elements(By.CSS_SELECTOR, "input[type=checkbox]")}
    check(sorted(boxes) == ["Advertising", "Analytics", "Content"], "one checkbox per category: %s" % sorted(boxes))
    check(boxes["Advertising"].is_selected() and not boxes["Content"].is_selected(), "the default choice is shown")
    # Clicked through their labels, as a person would.
    for name in ("Advertising", "Content"):
        driver.find_element(By.CSS_SELECTOR, "label[for='%s']" % boxes[name].get_attribute("id")).click()
    click_button("Block these categories")
    wait_for("the categories notice", lambda: "services blocks 2 of its 3 categories: Analytics, Content." in notices())
    details = driver.find_element(By.CSS_SELECTOR, "details.categories")
    details.find_element(By.TAG_NAME, "summary").click()
    check("Categories: 2 of 3 blocked" in details.text and "(the default)" not in details.text, "the new summary: " + details.text)
    chosen = [box.get_attribute("value") for box in details.find_elements(By.CSS_SELECTOR, "input[type=checkbox]") if box.is_selected()]
    check(chosen == ["Analytics", "Content"], "the page shows the stored choice: %s" % chosen)
    axe("lists-categories")
    shot("lists-categories")
    steps.append("categories")

    # 6. My rules: a bad line is refused with its reason, nothing is saved; then saved.
    driver.get(base + "/rules")
    fill("#rules-text", "||blocked-by-me.test^\nexample.com##+js(nowebrtc)")
    click_button("Save my rules")
    wait_for("the rule problems", lambda: driver.find_elements(By.CSS_SELECTOR, "#rules-problems"))
    check("scriptlets are not supported" in text("#rules-problems"), "the reason is shown: " + text("#rules-problems"))
    axe("rules-error")
    shot("rules-error")
    fill("#rules-text", "||blocked-by-me.test^")
    click_button("Save my rules")
    wait_for("the saved rules", lambda: "Saved 1 rule" in notices())
    steps.append("rules")

    # 7. DNS: the running server blocks the new rule; the log shows it live; one click allows it.
    driver.get(base + "/dns")
    deadline = time.time() + 15
    status = None
    while time.time() < deadline:
        status, _ = dig("blocked-by-me.test")
        if status == "NXDOMAIN":
            break
        time.sleep(0.5)
    check(status == "NXDOMAIN", "pepper dns serve blocks the rule after its reload, got %s" % status)
    wait_for("the blocked query in the live log",
             lambda: any(row.find_elements(By.CSS_SELECTOR, "button") and "blocked-by-me.test" in row.text
                         for row in driver.find_elements(By.CSS_SELECTOR, "#query-log tbody tr")), timeout=20)
    shot("dns-live")
    for row in driver.find_elements(By.CSS_SELECTOR, "#query-log tbody tr"):
        if "blocked-by-me.test" in row.text and row.find_elements(By.CSS_SELECTOR, "button"):
            row.find_element(By.CSS_SELECTOR, "button").click()
            break
    wait_for("the allow notice", lambda: "Allowed blocked-by-me.test" in notices())
    deadline = time.time() + 15
    answers = []
    while time.time() < deadline:
        status, answers = dig("blocked-by-me.test")
        if status == "NOERROR" and answers:
            break
        time.sleep(0.5)
    check(status == "NOERROR" and answers == [config["upstreamAnswer"]], "the next dig is answered: %s %s" % (status, answers))
    driver.get(base + "/dns?blocked=1")
    # This server answers no DNS over TLS or HTTPS: the devices' section says how to start it.
    check("Restart it with --server-name HOST --tls-listen IP:853 --https-listen IP:443" in text("#away"),
          "the away section names the flags: " + text("#away"))
    axe("dns")
    shot("dns")
    steps.append("dns")

    # 8. Allowlist: check a URL (the verdict, rule, list and line), allow a pasted address.
    driver.get(base + "/allowlist")
    fill("#check-url", "https://ads.extra.test/banner.js")
    click_button("Check")
    wait_for("the verdict", lambda: driver.find_elements(By.CSS_SELECTOR, "#verdict"))
    verdict = text("#verdict")
    check("BLOCKED" in verdict and "||ads.extra.test^" in verdict and "from extra, line 1" in verdict, "verdict: " + verdict)
    axe("check")
    shot("check")
    fill("#allow-site", "https://www.shop.test/cart?item=1")
    click_button("Allow this site")
    wait_for("the allowlist notice", lambda: "Allowlisted shop.test" in notices())
    check("shop.test" in text("table"), "the site is listed")
    axe("allowlist")
    shot("allowlist")
    steps.append("allowlist")

    # 9. A phone-sized screen: nothing wider than the screen.
    walk.fits_phone("/lists")
    steps.append("phone")
finally:
    walk.finish()

print("OK " + " ".join(steps))
