import CallFilter
import Testing

@Suite("Phone numbers")
struct PhoneNumberTests {
    let us = try! PhoneNumberParser(defaultRegion: "US")

    @Test(arguments: [
        ("253-950-1212", "+12539501212"), ("(253) 950 1212", "+12539501212"), ("+1 253 950 1212", "+12539501212"),
        ("1 253 950 1212", "+12539501212"), ("1-253-950-1212", "+12539501212"), ("+1.253.950.1212", "+12539501212"),
        ("011 44 20 7946 0000", "+442079460000"), ("+44 20 7946 0000", "+442079460000"), ("+44 (0)20 7946 0000", "+442079460000"),
        ("tel:+1-253-950-1212", "+12539501212"), ("253 950 1212 ext. 42", "+12539501212"), ("1-800-FLOWERS", "+18003569377"),
        ("２５３９５０１２１２", "+12539501212"), ("Call: +1 (253) 950-1212.", "+12539501212"),
    ])
    func usFormats(input: String, expected: String) throws {
        #expect(try us.parse(input).e164 == expected)
    }

    @Test func internationalAndTrunkPrefixesOfOtherRegions() throws {
        #expect(try PhoneNumberParser(defaultRegion: "GB").parse("020 7946 0000").e164 == "+442079460000")
        #expect(try PhoneNumberParser(defaultRegion: "DE").parse("00 1 253 950 1212").e164 == "+12539501212")
        #expect(try PhoneNumberParser(defaultRegion: "KR").parse("001 1 253 950 1212").e164 == "+12539501212")
        #expect(try PhoneNumberParser(defaultRegion: "AU").parse("0011 44 20 7946 0000").e164 == "+442079460000")
        #expect(try PhoneNumberParser(defaultRegion: "FR").parse("06 12 34 56 78").e164 == "+33612345678")
        #expect(try PhoneNumberParser(defaultRegion: "RU").parse("8 (495) 123-45-67").e164 == "+74951234567")
        #expect(try PhoneNumberParser(defaultRegion: "jp").parse("090-1234-5678").e164 == "+819012345678")
        // Italy keeps its leading zero.
        #expect(try PhoneNumberParser(defaultRegion: "IT").parse("06 1234 5678").e164 == "+390612345678")
        // Without a default region only international numbers parse.
        #expect(try PhoneNumberParser(defaultRegion: nil).parse("+44 20 7946 0000").e164 == "+442079460000")
        #expect(throws: PhoneNumberError.missingRegion) { try PhoneNumberParser(defaultRegion: nil).parse("253 950 1212") }
    }

    @Test func rejectsWithAReason() throws {
        #expect(throws: PhoneNumberError.notANumber) { try us.parse("call me") }
        #expect(throws: PhoneNumberError.notANumber) { try us.parse("") }
        #expect(throws: PhoneNumberError.invalidCountryCode) { try us.parse("+999 123 4567") }
        #expect(throws: PhoneNumberError.localOnly(region: "US", digits: 7)) { try us.parse("950-1212") }
        #expect(throws: PhoneNumberError.tooLong(region: "US", digits: 11, possible: [10])) { try us.parse("+1 253 950 12121") }
        #expect(throws: PhoneNumberError.tooShort(region: "US", digits: 9, possible: [10])) { try us.parse("+1 253 950 121") }
        #expect(throws: PhoneNumberError.unknownRegion("XX")) { try PhoneNumberParser(defaultRegion: "XX") }
        let reason = PhoneNumberError.tooShort(region: "US", digits: 9, possible: [10]).description
        #expect(reason == "too short: 9 digits, US numbers have 10 digits")
    }

    /// Letters are keypad digits, and the result is checked like any number: a number of the
    /// right length that no region uses (area code 555) is refused, typed with letters or digits.
    @Test func vanityNumbersMustBeNumbersInUse() throws {
        #expect(try us.parse("1-800-FLOWERS").e164 == "+18003569377")
        #expect(try us.parse("1-800-GOT-JUNK").e164 == "+18004685865")
        #expect(throws: PhoneNumberError.notInUse(region: "US")) { try us.parse("555-CALL-NOW") }
        #expect(throws: PhoneNumberError.notInUse(region: "US")) { try us.parse("+1 555 225 5669") }
        #expect(PhoneNumberError.notInUse(region: "US").description == "no US number looks like this (no such area code or number range)")
        // +1 numbers of other regions are checked against their own region (268: Antigua).
        #expect(try us.parse("+1 268 464 1234").e164 == "+12684641234")
        #expect(throws: PhoneNumberError.notInUse(region: "AG")) { try us.parse("+1 268 111 1234") }
        // Numbers used in Pepper's defaults, tests and docs stay valid.
        for text in ["+1 253 950 1212", "+1 425 950 1212", "+1 206 555 0100", "+44 20 7946 0000", "+33 6 12 34 56 78"] {
            #expect(us.number(text) != nil, "\(text)")
        }
    }

    @Test func callDirectoryValuesRoundTrip() throws {
        let number = try us.parse("+1 253 950 1212")
        #expect(number.callDirectoryValue == 12_539_501_212)
        #expect(PhoneNumber(callDirectoryValue: 12_539_501_212) == number)
        #expect(PhoneNumber(callDirectoryValue: 442_079_460_000)?.countryCode == 44)
        #expect(PhoneNumber(callDirectoryValue: 0) == nil)
    }

    @Test func digitPatternsBehaveLikeTheMetadataExpects() throws {
        let nanp = try DigitPattern(#"([2-9]\d{6})$|1"#)
        #expect(nanp.prefixMatch([2, 3, 4, 5, 6, 7, 8])?.groups == [0..<7])
        #expect(nanp.prefixMatch([1, 2, 3])?.length == 1)
        #expect(nanp.prefixMatch([1, 2, 3])?.groups == [nil])
        #expect(nanp.prefixMatch([0, 2, 3]) == nil)
        let lengths = try DigitPattern(#"0(?:0|1[3-9]\d)"#)
        #expect(lengths.fullMatch([0, 1, 3, 5]))
        #expect(!lengths.fullMatch([0, 1, 2, 5]))
        #expect(try DigitPattern("[^0-8]{2,3}").fullMatch([9, 9, 9]))
        #expect(throws: DigitPattern.SyntaxError.self) { try DigitPattern("a+") }
    }

    @Test func rangesExpandUpToTheCap() throws {
        let range = try #require(try NumberRange("+1 253 950 12##", parser: us))
        #expect(range.count == 100)
        #expect(range.callDirectoryValues == 12_539_501_200...12_539_501_299)
        #expect(range.description == "+125395012##")
        #expect(range.numbers.first?.e164 == "+12539501200")
        #expect(range.numbers.last?.e164 == "+12539501299")
        #expect(try NumberRange("+1 253 950 1212", parser: us) == nil)
        #expect(throws: NumberRange.Error.tooLarge(count: 100_000, cap: 10_000)) { try NumberRange("+1 253 95# ####", parser: us) }
        #expect(try NumberRange("+1 253 95# ####", parser: us, cap: 100_000)?.count == 100_000)
        #expect(throws: NumberRange.Error.wildcardNotAtEnd) { try NumberRange("+1 253 950 1#12", parser: us) }
        #expect(throws: NumberRange.Error.self) { try NumberRange("+1 253 9## ####", parser: us, cap: 10) }
    }
}
