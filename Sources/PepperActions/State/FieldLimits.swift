import Foundation

/// The longest text each field a person types may have, checked by the actions themselves so
/// that every face (the CLI, the console, the app) refuses the same input with the same words,
/// before any parsing: a megabyte pasted into a form is refused in time proportional to the
/// limit, not to what was sent, and nothing that long is ever stored.
public enum FieldLimits {
    /// A message sender as typed: a phone number with its spaces and brackets, a short code or an
    /// alphanumeric sender ID (at most 11 characters on the networks).
    public static let sender = 64
    /// A word or phrase of the message filter.
    public static let word = 100
    /// A call's label, shown on the incoming call.
    public static let label = 64
    /// A phone number or `#` range as typed.
    public static let number = 64
    /// A site or web address pasted into the allowlist, a DNS name, a list's address.
    public static let address = 2_048

    /// Throws ``ActionError/invalidField(field:problem:)`` naming `what` and the limit when `text`
    /// has more than `limit` characters (Unicode scalars, so that a character built of many
    /// combining marks counts for what it stores). Stops counting at the limit.
    public static func check(_ text: String, field: String, what: String, limit: Int) throws(ActionError) {
        // Fast path: no more bytes than the limit means no more scalars either.
        guard text.utf8.count > limit else { return }
        var count = 0
        for _ in text.unicodeScalars {
            count += 1
            if count > limit { throw .invalidField(field: field, problem: .tooLong(what: what, limit: limit)) }
        }
    }
}
