import Testing

@testable import FilterLists

@Suite("CSS selector validation")
struct CSSSelectorValidatorTests {
    @Test(arguments: [
        ".ad", "#ad-1", "div.banner > a[href^=\"http://ads.\"]", "a[href*='track' i]", "[data-ad]",
        "div:not(.keep)", "li:nth-child(2n+1)", "li:nth-of-type(odd)", "div:has(> .sponsored)", "p:is(.a, .b)",
        "*", "a + b ~ c", ".a,.b , .c", "#\\31 23", ".x\\:y", "div::before", "img[src$=\".gif\"]",
        "div:where(.x) span", "body > div:first-child", ":root > .ad", "li:nth-child(-n + 3 of .x)",
    ])
    func validSelectors(selector: String) {
        #expect(CSSSelectorValidator.isValid(selector))
    }

    @Test(arguments: [
        "", ".", "#", "#123", "div[", "a[href=]", "div >", "> div", "a,", ",a", "div:unknown-pseudo",
        "div:has-text(x)", "div:nth-child(foo)", "a {color:red}", "div:not(", "..a", "a!b", "::before(x)",
        "article:has(header:has(.x))",
    ])
    func invalidSelectors(selector: String) {
        #expect(!CSSSelectorValidator.isValid(selector))
    }
}
