#!/usr/bin/env python3
"""Walks the Sync page in Chromium (Selenium), as a person would, on a console served over HTTPS
with the home's certificate (Chromium told to accept it): the page offers the address the browser
used; a one-time code is made and shown with its QR code, which zbarimg reads back as the
invitation printed beside it; a laptop pairs with it (`pepper sync pair`, another home) and
appears in the list; it is removed. Every page is checked by axe-core; the page is shot at a
phone's width too.

Run by ConsoleBrowserTests with one argument, a JSON file:
  {"link", "pepper", "home", "laptop", "artifacts", "axe", "profile"}
Prints "OK step step ...".
"""
import json
import os
import subprocess
import sys
import tempfile

from browser_support import Walk
from selenium.webdriver.common.by import By

config = json.load(open(sys.argv[1]))
config["chromiumArguments"] = ["--ignore-certificate-errors"]
walk = Walk(config, "console-sync")
driver = walk.driver
check, fill, click_button, notices, heading, text, shot, axe, wait_for, exists = (
    walk.check, walk.fill, walk.click_button, walk.notices, walk.heading, walk.text, walk.shot, walk.axe, walk.wait_for,
    walk.exists)
steps = []

try:
    driver.get(config["link"])
    walk.open("/sync")
    wait_for("the Sync page", lambda: heading() == "Sync")
    check("This home does not sync yet" in text("main"), "the page says the home does not sync yet")
    offered = driver.find_element(By.ID, "sync-server").get_attribute("value")
    check(offered == walk.base, "the address the browser used is offered: %s" % offered)
    axe("page")
    shot("page")
    steps.append("page")

    click_button("Make a one-time code")
    wait_for("the invitation", lambda: exists("figure.qr svg"))
    invitation = driver.find_element(By.CSS_SELECTOR, "figcaption code").text.split("'")[1]
    check(invitation.startswith("pepper-sync://127.0.0.1:") and "&pin=" in invitation, "the invitation: " + invitation)
    # The QR code, as the browser shows it, reads back as the invitation.
    png = os.path.join(tempfile.mkdtemp(), "qr.png")
    driver.find_element(By.CSS_SELECTOR, "figure.qr svg").screenshot(png)
    read = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True)
    check(read.returncode == 0 and read.stdout.strip() == invitation, "zbarimg read %r" % read.stdout)
    axe("invitation")
    shot("invitation")
    steps.append("invitation")

    paired = subprocess.run([config["pepper"], "sync", "pair", invitation, "--name", "laptop"], capture_output=True, text=True,
                            env=dict(os.environ, PEPPER_HOME=config["laptop"]))
    check(paired.returncode == 0, "pepper sync pair: " + paired.stderr)
    walk.open("/sync")
    wait_for("the paired laptop", lambda: "laptop" in text("table"))
    check("This home serves sync" in text("main"), "the page says the home serves sync")
    axe("devices")
    shot("devices")
    steps.append("paired")

    driver.find_element(By.CSS_SELECTOR, 'button[aria-label="Remove laptop"]').click()
    wait_for("the removal's notice", lambda: "Removed laptop" in notices())
    check("No device is paired with this home" in text("main"), "the list is empty")
    again = subprocess.run([config["pepper"], "sync", "now"], capture_output=True, text=True,
                           env=dict(os.environ, PEPPER_HOME=config["laptop"]))
    check(again.returncode != 0 and "this device was removed" in again.stderr, "the removed laptop is refused: " + again.stderr)
    shot("removed")
    steps.append("removed")

    walk.fits_phone("/sync")
    steps.append("phone")
finally:
    walk.finish()

print("OK " + " ".join(steps))
