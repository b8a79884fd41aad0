#!/usr/bin/env python3
"""The console's door in a real browser (Chromium driven by Selenium), over HTTPS with a test
certificate: the printed link signs the browser in, the DNS page's live log opens and is closed
with the tab, and after `pepper console` restarts the same browser is still signed in; on a
fresh profile, the owner signs in with the password although a stranger at another address
was throttled.

Run by ConsoleDoorBrowserTests with one argument, a JSON file:
  {"phase": "first" | "after-restart" | "owner", "link", "password", "artifacts", "profile",
   "chromiumArguments"}
Chromium trusts the test certificate through --ignore-certificate-errors-spki-list (the SHA-256
of its public key), so the TLS handshake is real and any other certificate is refused.
"""
import json
import sys

from browser_support import Walk

config = json.load(open(sys.argv[1]))
phase = config["phase"]
walk = Walk(config, "door")
driver = walk.driver
check, fill, click_button, notices, heading, shot, wait_for = (
    walk.check, walk.fill, walk.click_button, walk.notices, walk.heading, walk.shot, walk.wait_for)

try:
    base = walk.base
    check(base.startswith("https://"), "the console speaks HTTPS: " + base)
    if phase == "first":
        driver.get(config["link"])
        wait_for("the setup page", lambda: heading() == "Set up Pepper")
        cookie = driver.get_cookie("pepper_console")
        check(cookie is not None and cookie["secure"] and cookie["httpOnly"], "the session cookie is Secure and HttpOnly: %s" % cookie)
        check(driver.execute_script("return window.isSecureContext"), "the page is a secure context")
        shot("tls-setup")
        walk.steps.append("signed-in")
        # The DNS page opens its live log (/dns/log/events); quitting closes the tab with it.
        walk.open("/dns")
        wait_for("the DNS page", lambda: heading() == "DNS")
        seen = []
        wait_for("the live log's stream", lambda: seen.append(walk.requests_seen("/dns/log/events")) or any(seen), timeout=10)
        shot("tls-dns")
        walk.steps.append("dns-stream")
    elif phase == "after-restart":
        walk.open("/lists")
        wait_for("the lists page", lambda: heading() in ("Lists", "Sign in"))
        check(heading() == "Lists", "still signed in after the console restarted (got %s)" % heading())
        shot("tls-after-restart")
        walk.steps.append("still-signed-in")
    elif phase == "owner":
        walk.open("/login")
        wait_for("the sign-in page", lambda: heading() == "Sign in")
        fill("#password", config["password"])
        fill("#name", "Owner")
        click_button("Sign in")
        wait_for("the console", lambda: heading() in ("Set up Pepper", "Start", "Sign in"))
        check(heading() != "Sign in", "the owner signs in although another address was throttled: " + notices())
        shot("tls-owner-signed-in")
        walk.steps.append("owner-signed-in")
    print("OK " + " ".join(walk.steps))
finally:
    walk.finish()
