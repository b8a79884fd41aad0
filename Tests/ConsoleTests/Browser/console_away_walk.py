#!/usr/bin/env python3
"""Walks the DNS page's "Phones and laptops away from home" in Chromium (Selenium), as a person
would: a bad device name gets the field's error, a good one shows the device's addresses, and
the profile downloads, over DNS over HTTPS by the link and over TLS by the form's button.

Run by ConsoleBrowserTests with one argument, a JSON file:
  {"link", "artifacts", "axe", "profile", "downloads", "serverName"}
Prints "OK step step ..."; the Swift test checks the downloaded profiles.
"""
import json
import os
import sys
import time

from browser_support import Walk
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

config = json.load(open(sys.argv[1]))
walk = Walk(config, "console-away")
driver = walk.driver
check, fill, click_button, text, shot, axe, wait_for = (
    walk.check, walk.fill, walk.click_button, walk.text, walk.shot, walk.axe, walk.wait_for)
server = config["serverName"]
downloads = config["downloads"]


def downloaded(name):
    path = os.path.join(downloads, name)
    wait_for("the download of " + name, lambda: os.path.exists(path) and os.path.getsize(path) > 0, timeout=20)
    return path


def section_shot(name):
    section = driver.find_element(By.ID, "away")
    driver.execute_script("arguments[0].scrollIntoView()", section)
    section.screenshot(os.path.join(walk.artifacts, "%s-%s.png" % (walk.prefix, name)))


steps = walk.steps
try:
    driver.get(config["link"])
    wait_for("the console", lambda: driver.find_elements(By.CSS_SELECTOR, "h1"))
    walk.open("/dns")
    wait_for("the away section", lambda: walk.exists("#away-form"))
    check("Phones and laptops away from home" in text("#away"), "the section's title")
    steps.append("section")

    # A name that is not one DNS label: the field's error, nothing downloaded.
    fill("#away-device", "My Phone")
    click_button("Show addresses")
    wait_for("the device's error", lambda: walk.exists("#away-device-error"))
    check("A device name has only letters, digits and '-'" in text("#away-device-error"), text("#away-device-error"))
    check(driver.find_element(By.ID, "away-device").get_attribute("aria-invalid") == "true", "the field is marked invalid")
    check("No profile was made" in walk.notices(), "the notice: " + walk.notices())
    axe("error")
    section_shot("error")
    steps.append("error")

    # The device's addresses.
    fill("#away-device", "phone")
    Select(driver.find_element(By.ID, "away-protocol")).select_by_value("https")
    click_button("Show addresses")
    wait_for("the addresses", lambda: walk.exists("#away-addresses"))
    shown = text("#away-addresses")
    for address in ["https://%s/dns-query/phone" % server, "phone.%s" % server]:
        check(address in shown, "%s is shown: %s" % (address, shown))
    check("It carries Pepper private CA (%s)" % server in text("#away"), "the CA is named: " + text("#away"))
    axe("addresses")
    shot("page")
    section_shot("addresses")
    steps.append("addresses")

    # The profile: by the link (DNS over HTTPS), then by the form's button (DNS over TLS).
    driver.find_element(By.ID, "away-download").click()
    os.rename(downloaded("phone.mobileconfig"), os.path.join(downloads, "phone-https.mobileconfig"))
    Select(driver.find_element(By.ID, "away-protocol")).select_by_value("tls")
    click_button("Download profile")
    os.rename(downloaded("phone.mobileconfig"), os.path.join(downloads, "phone-tls.mobileconfig"))
    check(driver.current_url.endswith("/dns?device=phone&protocol=https"), "a download leaves the page: " + driver.current_url)
    steps.append("download")
finally:
    walk.finish()

print("OK " + " ".join(steps))
