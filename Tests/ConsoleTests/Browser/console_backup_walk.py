#!/usr/bin/env python3
"""Walks the Backup page in Chromium (Selenium), as a person would, beside a running
`pepper dns serve` on the same home: passphrases that differ are refused at the field; an
encrypted backup downloads; the home changes (a rule removed, a site allowed, and the DNS server
answers the name the rule blocked); the backup with a wrong passphrase is refused at the field;
with the right one and the box ticked it restores, the browser stays signed in, and the DNS
server, never stopped, blocks the name again. Every page is checked by axe-core.

Run by ConsoleBrowserTests with one argument, a JSON file:
  {"link", "pepper", "home", "dig", "dnsPort", "upstreamAnswer", "artifacts", "axe", "profile", "downloads"}
Prints "OK step step ..."; the Swift test checks the state afterwards.
"""
import json
import os
import re
import subprocess
import sys
import time

from browser_support import Walk
from selenium.webdriver.common.by import By

config = json.load(open(sys.argv[1]))
walk = Walk(config, "console-backup")
driver = walk.driver
check, fill, click_button, notices, heading, text, shot, axe, wait_for, exists = (
    walk.check, walk.fill, walk.click_button, walk.notices, walk.heading, walk.text, walk.shot, walk.axe, walk.wait_for,
    walk.exists)
downloads = config["downloads"]
passphrase = "a walk in the park at dawn"
rule = "||restored-rule.test^"


def pepper(*arguments):
    """Runs the `pepper` command on the same home, as a second face would."""
    result = subprocess.run([config["pepper"]] + list(arguments), capture_output=True, text=True,
                            env=dict(os.environ, PEPPER_HOME=config["home"]))
    check(result.returncode == 0, "pepper %s failed: %s" % (" ".join(arguments), result.stderr))
    return result.stdout


def dig(name):
    output = subprocess.run([config["dig"], "@127.0.0.1", "-p", str(config["dnsPort"]), name, "A", "+tries=1", "+time=2"],
                            capture_output=True, text=True).stdout
    return output.split("status: ")[1].split(",")[0] if "status: " in output else None


def dig_until(name, expected, seconds=20):
    deadline = time.time() + seconds
    status = None
    while time.time() < deadline:
        status = dig(name)
        if status == expected:
            return status
        time.sleep(0.5)
    return status


def section_shot(name, section_id):
    section = driver.find_element(By.ID, section_id)
    driver.execute_script("arguments[0].scrollIntoView()", section)
    section.screenshot(os.path.join(walk.artifacts, "%s-%s.png" % (walk.prefix, name)))


steps = walk.steps
try:
    driver.get(config["link"])
    wait_for("the console", lambda: exists("h1"))
    check(dig_until("restored-rule.test", "NXDOMAIN") == "NXDOMAIN", "pepper dns serve blocks the rule before the backup")

    # The page, from the navigation.
    driver.find_element(By.CSS_SELECTOR, 'nav a[href="/backup"]').click()
    wait_for("the backup page", lambda: heading() == "Backup")
    check(driver.find_element(By.CSS_SELECTOR, 'nav a[href="/backup"]').get_attribute("aria-current") == "page", "current in the navigation")
    page = text("main")
    for sentence in ["Download a backup", "Restore from a backup", "Restoring replaces this home's state",
                     "is not stopped", "every other browser signed in to this console is signed out"]:
        check(sentence in page, "the page says: " + sentence)
    axe("page")
    shot("page")
    steps.append("page")

    # Two passphrases that differ: the field's error, nothing downloaded.
    fill("#backup-passphrase", passphrase)
    fill("#backup-passphrase-again", passphrase + "!")
    click_button("Download a backup")
    wait_for("the passphrase's error", lambda: exists("#backup-passphrase-error"))
    check("The two passphrases differ" in text("#backup-passphrase-error"), text("#backup-passphrase-error"))
    check(driver.find_element(By.ID, "backup-passphrase").get_attribute("aria-invalid") == "true", "the field is marked invalid")
    check("No backup was made" in notices(), "the notice: " + notices())
    check(os.listdir(downloads) == [], "nothing was downloaded: %s" % os.listdir(downloads))
    axe("passphrase-error")
    section_shot("passphrase-error", "download-form")
    steps.append("passphrase-error")

    # The same passphrase twice: the file downloads, under its dated name.
    fill("#backup-passphrase", passphrase)
    fill("#backup-passphrase-again", passphrase)
    click_button("Download a backup")

    def downloaded():
        names = [n for n in os.listdir(downloads) if n.endswith(".pepperbackup")]
        return names if names and os.path.getsize(os.path.join(downloads, names[0])) > 0 else None
    wait_for("the backup's download", downloaded, timeout=60)
    name = downloaded()[0]
    check(re.fullmatch(r"pepper-backup-\d{8}-\d{4}\.pepperbackup", name) is not None, "the file's name: " + name)
    backup = os.path.join(downloads, name)
    with open(backup, "rb") as file:
        check(file.read(14) == b"PEPPER-BACKUP\n", "a Pepper backup")
    steps.append("download")

    # The home changes after the backup: the rule goes (the DNS server answers the name), a site is allowed.
    pepper("rules", "remove", rule)
    pepper("allowlist", "add", "later.test")
    check(dig_until("restored-rule.test", "NOERROR") == "NOERROR", "pepper dns serve answers once the rule is gone")

    # A wrong passphrase: refused at the field, the home unchanged.
    driver.get(walk.base + "/backup")
    driver.find_element(By.ID, "restore-file").send_keys(backup)
    fill("#restore-passphrase", "not the passphrase")
    driver.find_element(By.ID, "restore-confirm").click()
    click_button("Restore from this backup")
    wait_for("the passphrase's error", lambda: exists("#restore-passphrase-error"), timeout=60)
    check("This passphrase does not open the backup." in text("#restore-passphrase-error"), text("#restore-passphrase-error"))
    check("Nothing was restored" in notices(), "the notice: " + notices())
    check(pepper("rules", "list") == "", "nothing restored")
    axe("wrong-passphrase")
    shot("wrong-passphrase")
    steps.append("wrong-passphrase")

    # The right one: restored, still signed in, the notice says what happened.
    driver.find_element(By.ID, "restore-file").send_keys(backup)
    fill("#restore-passphrase", passphrase)
    driver.find_element(By.ID, "restore-confirm").click()
    click_button("Restore from this backup")
    wait_for("the restore's notice", lambda: "Restored " in notices(), timeout=90)
    check(heading() == "Backup" and exists('nav a[href="/backup"]'), "still signed in, on the backup page")
    check("The state it replaced is kept in" in notices() and ".replaced-" in notices(), "the notice: " + notices())
    check(pepper("rules", "list") == rule + "\n", "the rule is back")
    axe("restored")
    shot("restored")
    steps.append("restore")

    # The DNS server was not stopped and blocks the restored rule.
    check(dig_until("restored-rule.test", "NXDOMAIN") == "NXDOMAIN", "pepper dns serve blocks the restored rule")
    steps.append("dns")

    # At a phone's width: nothing wider than the screen, and the whole page as it shows there.
    walk.fits_phone("/backup")
    driver.set_window_size(390, 844)
    walk.open("/backup")
    shot("phone")
    driver.set_window_size(1280, 1000)
    steps.append("phone")
finally:
    walk.finish()

print("OK " + " ".join(steps))
