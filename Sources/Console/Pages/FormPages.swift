import HTTPTypes
import Screens

/// What every form page decides the same way: what its top says, and its status.
extension Notice {
    /// The notice for the top of a form's page. An error about one field is shown at that field,
    /// so the top says only what did not happen (`refusal`, "Nothing was added") and where to look.
    func banner(_ refusal: String) -> Notice {
        field == nil ? self : Notice(.error, "\(refusal): see the form below.")
    }
}

extension HTTPResponse.Status {
    /// A form page's status: 422 when what was sent was refused (the page shows why), 200 otherwise.
    static func form(refused: Bool) -> HTTPResponse.Status {
        refused ? .unprocessableContent : .ok
    }
}
