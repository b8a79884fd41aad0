#!/usr/bin/env python3
"""Writes the phone-number oracle set: inputs as people type them, each with the answer of the
PyPI `phonenumbers` package (Google libphonenumber).

Output: one case per line, tab-separated: REGION, INPUT, EXPECTED, where EXPECTED is the E.164
form when libphonenumber parses the input, finds its length possible for the region
(`is_possible_number_with_reason(...) == IS_POSSIBLE`) and the number valid (`is_valid_number`:
of one of its region's number types, so `555-CALL-NOW` in the US, area code 555, is not), else
`INVALID:` and libphonenumber's reason.
The set is deterministic (seeded); `--count-per-region` scales it.

Usage: .venv-oracle/bin/python scripts/phone-oracle.py [--count-per-region N] > cases.tsv
"""
import argparse
import random
import sys

import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberFormat, PhoneNumberType, ValidationResult

REGIONS = [
    "US", "CA", "GB", "DE", "FR", "IT", "ES", "NL", "BE", "CH", "AT", "SE", "NO", "DK", "FI", "PL", "RU", "UA", "TR",
    "IN", "CN", "JP", "KR", "AU", "NZ", "BR", "AR", "MX", "CO", "ZA", "NG", "EG", "SA", "AE", "IL", "SG", "HK", "TH",
    "ID", "PH", "VN", "PK", "IE", "PT", "GR", "CZ", "HU", "RO", "KZ", "JM", "GG", "CL", "PE", "MY", "BD", "KE", "MA",
]
TYPES = [
    PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, PhoneNumberType.TOLL_FREE, PhoneNumberType.PREMIUM_RATE,
    PhoneNumberType.SHARED_COST, PhoneNumberType.VOIP, PhoneNumberType.PERSONAL_NUMBER, PhoneNumberType.UAN,
]
CALLING_FROM = ["US", "GB", "DE", "JP", "AU", "KR", "BR", "RU", "SG", "FR"]


def expected(text, region):
    try:
        number = phonenumbers.parse(text, region)
    except NumberParseException as error:
        return "INVALID:parse-" + str(error.error_type)
    reason = phonenumbers.is_possible_number_with_reason(number)
    if reason != ValidationResult.IS_POSSIBLE:
        return "INVALID:length-" + str(reason)
    if not phonenumbers.is_valid_number(number):
        return "INVALID:not-in-use"
    return phonenumbers.format_number(number, PhoneNumberFormat.E164)


def vary(rng, digits):
    """Random digits after the first few, so most stay in a real range."""
    keep = min(len(digits), 3 + rng.randrange(2))
    return digits[:keep] + "".join(rng.choice("0123456789") for _ in range(len(digits) - keep))


def punctuate(rng, text):
    style = rng.randrange(5)
    if style == 0:
        return text.replace(" ", "-")
    if style == 1:
        return text.replace(" ", ".")
    if style == 2:
        return text.replace(" ", "")
    if style == 3:
        return "  " + text + " "
    return text


def cases_for(rng, region, count):
    examples = []
    for kind in TYPES:
        example = phonenumbers.example_number_for_type(region, kind)
        if example is not None:
            examples.append(example)
    if not examples:
        return
    made = 0
    while made < count:
        base = rng.choice(examples)
        nsn = phonenumbers.national_significant_number(base)
        shape = rng.randrange(100)
        if shape < 90:
            digits = vary(rng, nsn)
        elif shape < 95:
            digits = nsn[:-1]
        else:
            digits = nsn + rng.choice("0123456789")
        try:
            number = phonenumbers.parse("+" + str(base.country_code) + digits, None)
        except NumberParseException:
            continue
        form = rng.randrange(10)
        if form == 0:
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.E164), region
        elif form == 1:
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL), region
        elif form in (2, 3):
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL), region
        elif form == 4:
            # national digits with the trunk prefix as people key them, no punctuation
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL), region
            text = "".join(c for c in text if c.isdigit())
        elif form == 5:
            caller = rng.choice(CALLING_FROM)
            text, parse_region = phonenumbers.format_out_of_country_calling_number(number, caller), caller
        elif form == 6:
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.RFC3966), rng.choice(CALLING_FROM)
        elif form == 7:
            # a national number read in the wrong region
            text, parse_region = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL), rng.choice(REGIONS)
        elif form == 8:
            # the country code typed without "+"
            text, parse_region = str(number.country_code) + " " + phonenumbers.national_significant_number(number), region
        else:
            text, parse_region = "+" + str(number.country_code) + " " + phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL), region
        text = punctuate(rng, text)
        yield parse_region, text
        made += 1


FIXED = [
    ("US", "253-950-1212"), ("US", "(253) 950 1212"), ("US", "+1 253 950 1212"), ("US", "1 253 950 1212"),
    ("US", "011 44 20 7946 0000"), ("KR", "001 253 950 1212"), ("TH", "001 1 253 950 1212"), ("DE", "00 44 20 7946 0000"),
    ("GB", "+44 20 7946 0000"), ("GB", "020 7946 0000"), ("GB", "+44 (0)20 7946 0000"), ("US", "1-800-FLOWERS"),
    ("US", "253 950 1212 ext. 42"), ("US", "253-950-1212 x42"), ("US", "tel:+1-253-950-1212"), ("US", "950-1212"),
    ("US", "call me"), ("US", ""), ("US", "+"), ("US", "12"), ("US", "+999 123 4567"), ("US", "+1 253 950 12121"),
    ("US", "+1 253 950 121"), (None, "253 950 1212"), (None, "+44 20 7946 0000"), ("FR", "06 12 34 56 78"),
    ("FR", "+33 6 12 34 56 78"), ("JP", "090-1234-5678"), ("IN", "098765 43210"), ("AU", "0011 1 253 950 1212"),
    ("RU", "8 (495) 123-45-67"), ("BR", "0xx21 2345 6789"), ("US", "+1 (253) 950-1212;ext=7"), ("US", "２５３９５０１２１２"),
    ("EG", "٠١٠٠١٢٣٤٥٦٧"), ("US", "+011 44 20 7946 0000"), ("US", "+1 253 950 1212 / x3"), ("AR", "011 15 2345-6789"),
    # Vanity numbers: letters are keypad digits, and the result must be a number in use.
    ("US", "555-CALL-NOW"), ("US", "1-555-CALL-NOW"), ("US", "+1 555 CALL NOW"), ("US", "1-800-GOT-JUNK"),
    ("US", "1-800-CONTACTS"), ("US", "1 (888) PEPPER-1"), ("US", "206-PEPPERS"), ("US", "1-900-CALL-NOW"), ("CA", "1-800-MY-APPLE"),
    ("GB", "0800 CALL NOW"), ("AU", "1300 FLOWERS"), ("US", "253-950-12AB"), ("US", "CALL-NOW"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count-per-region", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fuzz", type=int, default=1000, help="add N random strings of digits, punctuation and letters")
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    out = sys.stdout
    rows = [(region or "", text) for region, text in FIXED]
    for region in REGIONS:
        rows.extend(cases_for(rng, region, arguments.count_per_region))
    # Fuzz: what people paste (digits with stray punctuation, letters, extensions, pluses).
    alphabet = "0123456789" * 4 + " +-().x#*/;,~" + "extEXTabcABC" + "\u00a0\uff10\uff11\u0663"
    for _ in range(arguments.fuzz):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 26)))
        if rng.randrange(3) == 0:
            text = "+" + text
        rows.append((rng.choice(REGIONS), text.replace("\t", " ")))
    for region, text in rows:
        assert "\t" not in text and "\n" not in text
        out.write(f"{region}\t{text}\t{expected(text, region or None)}\n")


if __name__ == "__main__":
    main()
