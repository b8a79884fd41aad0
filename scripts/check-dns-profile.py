#!/usr/bin/env python3
"""Checks Apple configuration profiles that set encrypted DNS (what `pepper dns profile` and the
console's DNS page write) against the payload keys Apple documents.

Usage: python3 scripts/check-dns-profile.py FILE...

Each FILE is read with plistlib and checked against:
  - the profile's top-level keys (TopLevel) and the keys common to every payload
    (https://developer.apple.com/documentation/devicemanagement/toplevel,
    https://developer.apple.com/documentation/devicemanagement/commonpayloadkeys);
  - `com.apple.dnsSettings.managed`
    (https://developer.apple.com/documentation/devicemanagement/dnssettings);
  - `com.apple.security.root`
    (https://developer.apple.com/documentation/devicemanagement/certificateroot), whose
    certificate must parse (`openssl x509 -inform DER`) and be a CA's.
Apple publishes the same keys as YAML in https://github.com/apple/device-management
(mdm/profiles); the tables below are written from them.

A problem is an unknown key, a missing required key, a value of the wrong type or outside the
documented values, a DNS-over-HTTPS ServerURL that is not https://, a ServerName without
DNSProtocol TLS, a server address that is not an IP address, a certificate that does not parse,
two payloads with one PayloadIdentifier or PayloadUUID, or no DNS settings payload at all.
Exit status: 0 when every file passes, 1 when one does not (each problem printed with its key
path), 2 on a usage error. Standard library and openssl only.
"""

import datetime
import ipaddress
import plistlib
import re
import shutil
import subprocess
import sys
import urllib.parse

# Apple's types: <string> <integer> <boolean> <real> <data> <date> <array> <dictionary>.
STRING, INTEGER, BOOLEAN, REAL, DATA, DATE, ARRAY, DICTIONARY = (
    "string", "integer", "boolean", "real", "data", "date", "array", "dictionary")

UUID = re.compile(r"^[0-9A-Za-z]{8}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{12}$")


def key(kind, required=False, values=None, pattern=None, elements=None, subkeys=None):
    """One documented key: its type, whether it must be there, its allowed values or format,
    the type of an array's elements, a dictionary's own keys."""
    return {"type": kind, "required": required, "values": values, "pattern": pattern, "elements": elements,
            "subkeys": subkeys}


TOP_LEVEL = {
    "PayloadIdentifier": key(STRING, required=True),
    "PayloadUUID": key(STRING, required=True, pattern=UUID),
    "PayloadType": key(STRING, required=True, values=["Configuration"]),
    "PayloadVersion": key(INTEGER, required=True, values=[1]),
    "PayloadContent": key(ARRAY, required=True, elements=DICTIONARY),
    "IsEncrypted": key(BOOLEAN),
    "EncryptedPayloadContent": key(DATA),
    "PayloadDescription": key(STRING),
    "PayloadDisplayName": key(STRING),
    "HasRemovalPasscode": key(BOOLEAN),
    "PayloadOrganization": key(STRING),
    "PayloadRemovalDisallowed": key(BOOLEAN),
    "PayloadScope": key(STRING, values=["System", "User"]),
    "RemovalDate": key(DATE),
    "DurationUntilRemoval": key(REAL),
    "PayloadExpirationDate": key(DATE),
    "TargetDeviceType": key(INTEGER, values=[0, 1, 2, 3, 4, 5, 6]),
    "ConsentText": key(DICTIONARY),
}

COMMON = {
    "PayloadIdentifier": key(STRING, required=True),
    "PayloadUUID": key(STRING, required=True, pattern=UUID),
    "PayloadType": key(STRING, required=True),
    "PayloadVersion": key(INTEGER, required=True, values=[1]),
    "PayloadDescription": key(STRING),
    "PayloadDisplayName": key(STRING),
    "PayloadOrganization": key(STRING),
}

ON_DEMAND_RULE = {
    "Action": key(STRING, required=True, values=["Connect", "Disconnect", "EvaluateConnection"]),
    "ActionParameters": key(ARRAY, elements=DICTIONARY),
    "DNSDomainMatch": key(ARRAY, elements=STRING),
    "DNSServerAddressMatch": key(ARRAY, elements=STRING),
    "InterfaceTypeMatch": key(STRING, values=["Ethernet", "WiFi", "Cellular"]),
    "SSIDMatch": key(ARRAY, elements=STRING),
    "URLStringProbe": key(STRING),
}

DNS_SETTINGS = {
    "DNSProtocol": key(STRING, required=True, values=["HTTPS", "TLS"]),
    "ServerURL": key(STRING),
    "ServerName": key(STRING),
    "ServerAddresses": key(ARRAY, elements=STRING),
    "SupplementalMatchDomains": key(ARRAY, elements=STRING),
}

PAYLOADS = {
    "com.apple.dnsSettings.managed": {
        "DNSSettings": key(DICTIONARY, required=True, subkeys=DNS_SETTINGS),
        "OnDemandRules": key(ARRAY, elements=DICTIONARY, subkeys=ON_DEMAND_RULE),
        "ProhibitDisablement": key(BOOLEAN),
        "PayloadCertificateUUID": key(STRING, pattern=UUID),
    },
    "com.apple.security.root": {
        "PayloadCertificateFileName": key(STRING),
        "PayloadContent": key(DATA, required=True),
    },
}


def type_of(value):
    # bool before int: plistlib's booleans are ints to Python.
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return REAL
    if isinstance(value, str):
        return STRING
    if isinstance(value, bytes):
        return DATA
    if isinstance(value, datetime.datetime):
        return DATE
    if isinstance(value, list):
        return ARRAY
    if isinstance(value, dict):
        return DICTIONARY
    return type(value).__name__


def check_dictionary(value, table, path, problems):
    """The keys of `value` against `table`: unknown, missing, wrongly typed or out of range."""
    for name in value:
        if name not in table:
            problems.append("%s: unknown key (not among the documented %s)" % (join(path, name), ", ".join(sorted(table))))
    for name, spec in table.items():
        if name not in value:
            if spec["required"]:
                problems.append("%s: required key missing" % join(path, name))
            continue
        item = value[name]
        where = join(path, name)
        actual = type_of(item)
        if actual != spec["type"]:
            problems.append("%s: %s, not %s" % (where, a(spec["type"]), a(actual)))
            continue
        if spec["values"] is not None and item not in spec["values"]:
            problems.append("%s: %r is not one of %s" % (where, item, spec["values"]))
        if spec["pattern"] is not None and not spec["pattern"].match(item):
            problems.append("%s: %r is not a UUID" % (where, item))
        if spec["type"] == ARRAY:
            for index, element in enumerate(item):
                element_path = "%s[%d]" % (where, index)
                if spec["elements"] and type_of(element) != spec["elements"]:
                    problems.append("%s: %s, not %s" % (element_path, a(spec["elements"]), a(type_of(element))))
                elif spec["subkeys"] is not None:
                    check_dictionary(element, spec["subkeys"], element_path, problems)
        elif spec["type"] == DICTIONARY and spec["subkeys"] is not None:
            check_dictionary(item, spec["subkeys"], where, problems)


def a(kind):
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def join(path, name):
    return "%s.%s" % (path, name) if path else name


def check_dns_settings(settings, path, problems):
    """What DNSSettings' keys say of each other."""
    protocol = settings.get("DNSProtocol")
    url = settings.get("ServerURL")
    if protocol == "HTTPS":
        if not isinstance(url, str):
            problems.append("%s.ServerURL: required when DNSProtocol is HTTPS" % path)
        else:
            parsed = urllib.parse.urlsplit(url)
            if parsed.scheme != "https" or not parsed.hostname:
                problems.append("%s.ServerURL: %r is not an https:// URL with a host" % (path, url))
    if "ServerName" in settings and protocol != "TLS":
        problems.append("%s.ServerName: only with DNSProtocol TLS (it is %r)" % (path, protocol))
    if protocol == "TLS" and not isinstance(settings.get("ServerName"), str) and not isinstance(settings.get("ServerAddresses"), list):
        problems.append("%s: DNSProtocol TLS with neither ServerName nor ServerAddresses" % path)
    for index, address in enumerate(settings.get("ServerAddresses") or []):
        if isinstance(address, str):
            try:
                ipaddress.ip_address(address)
            except ValueError:
                problems.append("%s.ServerAddresses[%d]: %r is not an IP address" % (path, index, address))


def check_certificate(der, path, problems):
    """The root payload's certificate: it parses as DER, and it is a CA's."""
    openssl = shutil.which("openssl")
    if openssl is None:
        problems.append("%s: openssl is needed to check the certificate" % path)
        return
    parsed = subprocess.run([openssl, "x509", "-inform", "DER", "-noout", "-subject", "-ext", "basicConstraints"],
                            input=der, capture_output=True)
    if parsed.returncode != 0:
        reason = parsed.stderr.decode(errors="replace").strip().splitlines()
        problems.append("%s: not a DER certificate (openssl: %s)" % (path, reason[0] if reason else "exit %d" % parsed.returncode))
        return
    if "CA:TRUE" not in parsed.stdout.decode(errors="replace"):
        problems.append("%s: the certificate is not a CA's (no basicConstraints CA:TRUE), so it cannot be trusted as a root" % path)


def check_profile(profile):
    """The problems of one profile, and a line saying what it sets."""
    problems = []
    if not isinstance(profile, dict):
        return ["the property list is %s, not a dictionary" % a(type_of(profile))], ""
    check_dictionary(profile, TOP_LEVEL, "", problems)
    payloads = profile.get("PayloadContent") if isinstance(profile.get("PayloadContent"), list) else []
    identifiers, uuids = {profile.get("PayloadIdentifier"): "the profile"}, {profile.get("PayloadUUID"): "the profile"}
    summary = []
    dns = 0
    for index, payload in enumerate(payloads):
        path = "PayloadContent[%d]" % index
        if not isinstance(payload, dict):
            continue
        kind = payload.get("PayloadType")
        table = PAYLOADS.get(kind)
        if table is None:
            problems.append("%s.PayloadType: %r is not a payload of a DNS profile (%s)" % (path, kind, ", ".join(sorted(PAYLOADS))))
            check_dictionary(payload, COMMON, path, problems)
            continue
        check_dictionary(payload, dict(COMMON, **table), path, problems)
        for name, seen in (("PayloadIdentifier", identifiers), ("PayloadUUID", uuids)):
            value = payload.get(name)
            if value in seen:
                problems.append("%s.%s: %r is also %s's" % (path, name, value, seen[value]))
            seen[value] = path
        if kind == "com.apple.dnsSettings.managed" and isinstance(payload.get("DNSSettings"), dict):
            dns += 1
            settings = payload["DNSSettings"]
            check_dns_settings(settings, path + ".DNSSettings", problems)
            summary.append("%s %s" % (settings.get("DNSProtocol"), settings.get("ServerURL") or settings.get("ServerName")))
        if kind == "com.apple.security.root" and isinstance(payload.get("PayloadContent"), bytes):
            check_certificate(payload["PayloadContent"], path + ".PayloadContent", problems)
            summary.append("root certificate %s" % payload.get("PayloadDisplayName", ""))
    if dns == 0:
        problems.append("PayloadContent: no com.apple.dnsSettings.managed payload")
    return problems, "; ".join(summary)


def main(arguments):
    if not arguments or arguments[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 2 if not arguments else 0
    failed = False
    for name in arguments:
        try:
            with open(name, "rb") as file:
                profile = plistlib.load(file)
        except (OSError, plistlib.InvalidFileException, ValueError) as error:
            print("%s: not a property list: %s" % (name, error))
            failed = True
            continue
        problems, summary = check_profile(profile)
        if problems:
            failed = True
            for problem in problems:
                print("%s: %s" % (name, problem))
        else:
            print("%s: OK (%s)" % (name, summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
