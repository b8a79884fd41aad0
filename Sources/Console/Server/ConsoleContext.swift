import Foundation
import Hummingbird

/// The context of one console request: the signed-in session and, for a POST, its form (read
/// and checked once, by ``ConsoleGuard``).
struct ConsoleContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The session, once ``ConsoleGuard`` let the request in.
    var session: Sessions.Session?
    /// The submitted form of a POST, its CSRF token already checked.
    var form: FormData?
    /// The file of a form read as it arrived (``ConsoleGuard/streamedPaths``), on disk until
    /// the answer is sent.
    var upload: StreamedUpload.File?
    /// The client's address (the password throttle counts failures per address).
    let clientAddress: String?

    init(source: Source) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Uploads are checked against the console's own limit when the body is read.
    var maxUploadSize: Int { ConsoleServer.maximumBodyBytes }
}
