#!/usr/bin/env python3
"""Walks the console's calls, messages, labor-action and moderation screens in a real browser
(Chromium driven by Selenium), as people would, against a real `pepper picket serve`.

Run by ConsoleBrowserTests with one argument, a JSON file:
  {"link", "picketURL", "pepper", "home", "vcard", "artifacts", "axe", "profile"}
Steps: block a range and see `pepper calls export` change; label a number; import contacts and
block all others; add a word and try a message; create an API key; set the Picket server;
report a strike with every field of the design's data model (a name too long refused next to its
field before anything is sent; step 3's "Use my current location" with a position Chromium is
told to give, shown as its address), then accepted; approve it and see it in
/api/mobile/active-strikes; send a GPS snapshot for it from the current location, its address
shown before it is sent, and approve that; revoke the key and see the server refuse it.
Screenshots and axe-core's report go to `artifacts`.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from browser_support import Walk
from selenium.webdriver.common.by import By

config = json.load(open(sys.argv[1]))
walk = Walk(config, "people")
driver = walk.driver
check, fill, click_button, notices, heading, text, shot, axe, wait_for, exists = (
    walk.check, walk.fill, walk.click_button, walk.notices, walk.heading, walk.text, walk.shot, walk.axe, walk.wait_for,
    walk.exists)


def pepper(*arguments):
    """Runs the `pepper` command on the same home, as a second face would."""
    result = subprocess.run([config["pepper"]] + list(arguments), capture_output=True, text=True,
                            env=dict(os.environ, PEPPER_HOME=config["home"]))
    check(result.returncode == 0, "pepper %s failed: %s" % (" ".join(arguments), result.stderr))
    return result.stdout


def api(path, key):
    """GET on the Picket server: (status, JSON body or None)."""
    request = urllib.request.Request(config["picketURL"] + path, headers={"X-API-Key": key, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def field_error(field_id):
    found = driver.find_elements(By.ID, field_id + "-error")
    return found[0].text if found else ""


steps = walk.steps
try:
    driver.get(config["link"])
    wait_for("the first page", lambda: heading() in ("Set up Pepper", "Start"))

    # 1. Calls: a range typed as people type it, shown normalised, then blocked; the export changes.
    export_before = pepper("calls", "export")
    walk.open("/calls")
    fill("#number", "abc")
    click_button("Check the number")
    wait_for("the number's error", lambda: field_error("number") != "")
    check("not a phone number" in field_error("number"), "letters are refused next to the field: " + field_error("number"))
    fill("#number", "+1 (206) 555-01##")
    click_button("Check the number")
    wait_for("the preview", lambda: exists("#preview"))
    preview = text("#preview")
    check("+120655501##" in preview and "100 numbers, +12065550100 to +12065550199" in preview, "preview: " + preview)
    click_button("Block these 100 numbers")
    wait_for("the block notice", lambda: "Blocked +120655501## (100 numbers)" in notices())
    check("+120655501## (100 numbers)" in text("#blocked-list"), "the range is listed: " + text("#blocked-list"))
    export_after = pepper("calls", "export")
    blocked = [line.split("\t")[1] for line in export_after.splitlines() if line.startswith("block\t")]
    check("12065550100" in blocked and "12065550199" in blocked and len(blocked) == 101, "export: %s" % blocked[:5])
    check(export_after != export_before, "pepper calls export changed")
    steps.append("block-range")

    # A label, then edited in place.
    fill("#number", "425 555 0100")
    click_button("Check the number")
    wait_for("the preview", lambda: exists("#preview"))
    fill("#label", "Pizza place")
    click_button("Save the label")
    wait_for("the label notice", lambda: 'Calls from +14255550100 now show "Pizza place".' in notices())
    for item in driver.find_elements(By.CSS_SELECTOR, "#label-list li"):
        if "+14255550100" in item.text:
            box = item.find_element(By.CSS_SELECTOR, "input[name=label]")
            box.clear()
            box.send_keys("Pizza Palace")
            item.find_element(By.CSS_SELECTOR, "button").click()
            break
    wait_for("the new label", lambda: 'now show "Pizza Palace"' in notices())
    check("identify\t14255550100\tPizza Palace" in pepper("calls", "export"), "the export carries the new label")
    steps.append("label")

    # Contacts, then "block all except contacts"; try numbers.
    driver.find_element(By.ID, "vcard").send_keys(config["vcard"])
    click_button("Import the contacts")
    wait_for("the contacts notice", lambda: "Imported 2 numbers of 2 contacts" in notices())
    click_button("Block everyone but my contacts")
    wait_for("the switch", lambda: text("#block-all-state").startswith("On: only your 2 contact numbers ring"))
    fill("#try", "206 555 0142")
    click_button("Try")
    wait_for("the call verdict", lambda: exists("#call-verdict"))
    check("in the blocked range +120655501##" in text("#call-verdict"), "verdict: " + text("#call-verdict"))
    fill("#try", "+1 425 555 0199")
    click_button("Try")
    wait_for("the second verdict", lambda: "+14255550199" in text("#call-verdict"))
    check("not one of your contacts" in text("#call-verdict"), "verdict: " + text("#call-verdict"))
    fill("#try", "+44 20 7946 0000")
    click_button("Try")
    wait_for("the contact's verdict", lambda: "+442079460000" in text("#call-verdict"))
    check("one of your contacts" in text("#call-verdict") and "allow" in text("#call-verdict"), "verdict: " + text("#call-verdict"))
    check(json.loads(pepper("calls", "stats", "--json"))["decisions"] == [], "trying numbers is not counted")
    axe("calls")
    shot("calls")
    steps.append("contacts")

    # 2. Messages: a word, explained by its look-alikes; a message tried; the guard switched off and on.
    walk.open("/messages")
    fill("#word", "prize")
    click_button("Add the word")
    wait_for("the word notice", lambda: 'Messages with "prize" go to junk.' in notices())
    check("PR1ZE" in text("#word-table"), "the look-alikes are shown: " + text("#word-table"))
    fill("#try-sender", "+1 555 010 9999")
    fill("#try-text", "Claim your Prizе today")  # a Cyrillic е
    click_button("Try the message")
    wait_for("the message verdict", lambda: exists("#message-verdict"))
    verdict = text("#message-verdict")
    check(verdict.startswith("junk") and 'word rule "prize" matched "Prizе"' in verdict, "verdict: " + verdict)
    axe("messages")
    shot("messages")
    click_button("Turn the SMS guard off")
    wait_for("the guard off", lambda: text("#guard-state").startswith("Off"))
    check(pepper("sms", "guard").strip() == "off", "the CLI sees the guard off")
    click_button("Turn the SMS guard on")
    wait_for("the guard on", lambda: text("#guard-state").startswith("On"))
    steps.append("messages")

    # 3. The key a reporter's app needs (the preset "for the mobile apps"), shown once.
    walk.open("/moderation/keys")
    fill("#preset-mobile-apps-label", "browser walk")
    click_button("Create a key for the mobile apps")
    wait_for("the new key", lambda: exists("#new-key"))
    key = text("#new-key").strip()
    check(key.startswith("opl_") and len(key) == 68, "a key is shown: " + key)
    axe("keys")
    shot("keys-created")
    walk.open("/moderation/keys")
    check(key not in driver.page_source, "the key is shown only once")
    key_row = [row for row in driver.find_elements(By.CSS_SELECTOR, "#key-table tbody tr") if "browser walk" in row.text][0]
    key_id = key_row.find_element(By.TAG_NAME, "th").text
    check("read:mobile write:gps-snapshot write:submit-strike" in key_row.text, "the preset's scopes: " + key_row.text)
    steps.append("key")

    # 4. The Picket server, set once; the key never shown back in full.
    walk.open("/picket")
    fill("#server", config["picketURL"])
    fill("#key", key)
    click_button("Save and check")
    wait_for("the server notice", lambda: "answers with" in notices() or "did not confirm" in notices())
    check("Saved. %s answers with" % config["picketURL"] in notices(), "server check: " + notices())
    check(key not in driver.page_source and key[-4:] in text("#server-state"), "only the key's end is shown")
    axe("picket")
    shot("picket")
    steps.append("server")

    # The position Chromium gives the page when it asks (the Space Needle), allowed for the
    # console's origin: "Use my current location" then works as on a phone.
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": walk.base, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": 47.6205, "longitude": -122.3493, "accuracy": 10})

    # 5. Report a strike in three steps, every field of the design's data model; a name too long
    # is refused next to its field before anything is sent.
    walk.open("/picket/report")
    click_button("Next")
    wait_for("the required name", lambda: field_error("employer-name") != "")
    fill("#employer-name", "W" * 10000)
    fill("#employer-industry", "Manufacturing")
    fill("#employer-website", "https://walkout-widgets.example/jobs")
    click_button("Next")
    wait_for("the rule's refusal", lambda: field_error("employer-name") != "")
    check("At most 200 characters (this has 10000)" in field_error("employer-name"), "name: " + field_error("employer-name"))
    axe("report-error")
    shot("report-error")
    fill("#employer-name", "Walkout Widgets")
    click_button("Next")
    wait_for("the action step", lambda: exists("#action-organization"))
    fill("#action-organization", "Widget Workers United")
    fill("#action-location", "Walkout Widgets, Seattle, WA")
    driver.execute_script("document.getElementById('action-startDate').value = arguments[0];", time.strftime("%Y-%m-%d", time.gmtime()))
    fill("#action-durationDays", "30")
    fill("#action-description", "Strike for fair pay <script>alert('x')</script>")
    fill("#action-demands", "A contract")
    fill("#action-contactInfo", "picket captain: +1 206 555 0100")
    fill("#action-learnMoreUrl", "walkout-widgets.example/strike")
    click_button("Next")
    wait_for("the address's refusal", lambda: field_error("action-learnMoreUrl") != "")
    check("https://" in field_error("action-learnMoreUrl"), "learn more: " + field_error("action-learnMoreUrl"))
    fill("#action-learnMoreUrl", "https://union.example/walkout")
    click_button("Next")
    wait_for("the location step", lambda: exists("#location-address"))
    fill("#location-address", "Seattle, WA")
    click_button("Look up the address")
    wait_for("the found place", lambda: exists("#found"))
    check("Seattle" in text("#found"), "found: " + text("#found"))
    wait_for("the current-location button", lambda: driver.find_element(By.ID, "report-here").is_displayed())
    click_button("Use my current location")
    wait_for("the current location", lambda: exists("#found") and "47.6205" in text("#found"))
    check(driver.find_element(By.ID, "action-coordinates-latitude").get_attribute("value") == "47.6205", "the latitude is the device's")
    check("Seattle" in text("#found"), "the current location's address: " + text("#found"))
    axe("report-location")
    shot("report-location")
    click_button("Review")
    wait_for("the review", lambda: exists("#review"))
    review = text("#review")
    check("Walkout Widgets" in review and "<script>" in review, "the review shows the text as typed")
    check("Manufacturing" in review and "+1 206 555 0100" in review and "https://union.example/walkout" in review,
          "the review shows every field: " + review)
    axe("report-review")
    shot("report-review")
    click_button("Submit the report")
    wait_for("the receipt", lambda: exists("#receipt"))
    check("Submitted for moderation" in text("#receipt"), "receipt: " + text("#receipt"))
    strike_id = text("#receipt").split("(")[1].split(")")[0]
    axe("report-submitted")
    shot("report-submitted")
    steps.append("report")

    # 6. Moderation: the report as text, approved with a reason; it is then served.
    walk.open("/moderation")
    submission = driver.find_element(By.ID, "submission-" + strike_id)
    check("<script>alert('x')</script>" in submission.text, "the description is shown as text")
    check(driver.execute_script("return document.querySelectorAll('main script').length") == 0, "no script element came from it")
    check("from Seattle, Washington, United States" in submission.text, "the location summary names the city: " + submission.text)
    axe("moderation")
    shot("moderation")
    submission.find_element(By.CSS_SELECTOR, "input[name=reason]").send_keys("Checked with the union")
    click_button("Approve " + strike_id, within="#submission-" + strike_id)
    wait_for("the approval", lambda: ("Approved " + strike_id) in notices())
    log = text("#moderation-log")
    check("approved" in log and "Walkout Widgets" in log and "Checked with the union" in log and "console:" in log, "log: " + log)
    active = None
    for _ in range(50):
        status, active = api("/api/mobile/active-strikes", key)
        if status == 200 and any(strike["id"] == strike_id for strike in active["strikes"]):
            break
        time.sleep(0.2)
    check(any(strike["id"] == strike_id and strike["employerName"] == "Walkout Widgets" for strike in active["strikes"]),
          "the approved strike is in active-strikes")
    steps.append("approve")

    # 7. A GPS snapshot for it, approved in turn: typed coordinates are not sent before their
    # address is shown; then the current location, its address shown, is sent.
    walk.open("/picket/snapshot")
    wait_for("the strike to choose", lambda: exists("#strike-" + strike_id))
    driver.find_element(By.ID, "strike-" + strike_id).click()
    fill("#snapshot-latitude", "47.61")
    fill("#snapshot-longitude", "-122.2")
    click_button("Send the snapshot")
    wait_for("the address first", lambda: exists("#shown"))
    check("Nothing was sent yet" in notices() and not exists("#receipt"), "typed coordinates: " + notices())
    check("Bellevue" in text("#shown") or "Seattle" in text("#shown"), "shown: " + text("#shown"))
    fill("#snapshot-address", "Bellevue, WA")
    click_button("Look up the address")
    wait_for("the address's point", lambda: exists("#shown") and "Bellevue" in text("#shown"))
    driver.find_element(By.ID, "strike-" + strike_id).click()
    click_button("Use my current location")
    wait_for("the current location's address", lambda: exists("#shown") and "47.6205" in text("#shown"))
    check(driver.find_element(By.ID, "snapshot-latitude").get_attribute("value") == "47.6205", "the point is the device's")
    driver.find_element(By.ID, "strike-" + strike_id).click()
    fill("#snapshot-notes", "Picket line at the north gate")
    axe("snapshot")
    shot("snapshot")
    click_button("Send the snapshot")
    wait_for("the snapshot receipt", lambda: exists("#receipt"))
    check("Snapshot submitted for moderation" in text("#receipt"), "receipt: " + text("#receipt"))
    snapshot_id = text("#receipt").split("(")[1].split(")")[0]
    walk.open("/moderation")
    snapshot = driver.find_element(By.ID, "submission-" + snapshot_id)
    check("Walkout Widgets" in snapshot.text and "from the action's location" in snapshot.text, "snapshot: " + snapshot.text)
    click_button("Approve " + snapshot_id, within="#submission-" + snapshot_id)
    wait_for("the snapshot approval", lambda: ("Approved " + snapshot_id) in notices())
    steps.append("snapshot")

    # 8. Revoking the key: the server refuses it within its refresh interval.
    walk.open("/moderation/keys")
    click_button("Revoke " + key_id)
    wait_for("the revocation", lambda: ("Revoked " + key_id) in notices())
    refused_after = None
    started = time.time()
    while time.time() - started < 10:
        status, _ = api("/api/mobile/active-strikes", key)
        if status == 401:
            refused_after = time.time() - started
            break
        time.sleep(0.1)
    check(refused_after is not None and refused_after < 3, "the server refuses the revoked key within 3 s (%s)" % refused_after)
    shot("keys")
    steps.append("revoke")

    # 9. Phone width.
    for path in ("/calls", "/messages", "/picket/report", "/moderation"):
        walk.fits_phone(path)
    steps.append("phone")
finally:
    walk.finish()

print("OK " + " ".join(steps))
