import PepperActions
import Picket

/// A Picket server's refusal as a notice a person can act on: a validation error goes next to
/// the field it names (`action.startDate must be …` → field `action.startDate`), a refused key
/// says what to do about the key.
enum PicketServerErrors {
    /// The notice for `error`; `fields` are the form fields the request had, by their API paths.
    static func notice(_ error: PicketClientError, fields: [String] = []) -> Notice {
        switch error {
        case .badRequest(let message):
            // The server names the field first; the longest matching path wins (`action.coordinates.latitude`).
            let field = fields.filter { message.hasPrefix($0 + " ") || message.hasPrefix($0 + ":") }.max { $0.count < $1.count }
            return Notice(.error, Text.sentence("The server says: \(message)"), field: field)
        case .unauthorized(let message):
            return Notice(
                .error, Text.sentence("The server refused the API key (\(message)); give a valid key in the server settings"), field: "key")
        case .forbidden(let message):
            return .error(Text.sentence("The API key may not do this (\(message)); ask the server's operator for a key with that scope"))
        case .rateLimited(let retryAfter, _):
            return .error("The server is busy: try again" + (retryAfter.map { " in \(Int($0.rounded(.up))) s." } ?? " shortly."))
        case .payloadTooLarge(let message):
            return .error(Text.sentence("The server refused the request as too large (\(message))"))
        case .transport(let message):
            return .error(Text.sentence("Cannot reach the Picket server (\(message)); check its address and your connection"))
        case .notFound, .server, .invalidResponse, .invalidRequest:
            return .error(Text.sentence("The Picket server failed: \(error)"))
        }
    }

    /// The notice when no server is configured yet.
    static let notConfigured = Notice(.error, "Set the Picket server and your API key first (Labor actions › Server).", field: "server")

    /// The configured connection, or the notice saying to configure one.
    static func connection(_ state: PepperState) -> Result<PicketConnection, Notice> {
        do {
            guard let connection = try state.picketConnection() else { return .failure(notConfigured) }
            return .success(connection)
        } catch {
            return .failure(.failure(error))
        }
    }
}
