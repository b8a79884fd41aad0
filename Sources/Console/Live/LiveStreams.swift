import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Every Server-Sent Events stream the console has open (the DNS page's live log, "Update now").
///
/// A stream ends in three ways, and each one matters for Ctrl-C: its producer ends; its client
/// goes, which is noticed because a heartbeat is written every ``heartbeat`` and a write to a
/// closed connection fails; or the console shuts down (``closeAll()``). Without the last two, a
/// graceful shutdown waits for a handler that never learns its client left, and only SIGKILL
/// stops the process.
final class LiveStreams: Sendable {
    private struct State {
        var open: [UUID: AsyncStream<ByteBuffer>.Continuation] = [:]
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    /// How often an idle stream writes a comment line, to find out whether its client is still there.
    let heartbeat: Duration

    /// Streams that write a heartbeat every `heartbeat`.
    init(heartbeat: Duration = .seconds(1)) {
        self.heartbeat = heartbeat
    }

    /// How many streams are open now.
    var count: Int { state.withLockedValue { $0.open.count } }

    /// Ends every stream, and every stream opened from now on at once: the console is stopping.
    func closeAll() {
        let open = state.withLockedValue { state in
            state.closed = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }

    /// One event: a `data:` line of JSON.
    static func event(_ value: some Encodable) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return ByteBuffer(string: "data: " + String(decoding: data, as: UTF8.self) + "\n\n")
    }

    /// A Server-Sent Events answer: `produce` yields events (``event(_:)``) until it
    /// returns; the producer is cancelled when the stream ends for any other reason.
    func response(_ produce: @escaping @Sendable (AsyncStream<ByteBuffer>.Continuation) async -> Void) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(512))
        let id = UUID()
        let accepted = state.withLockedValue { state in
            guard !state.closed else { return false }
            state.open[id] = continuation
            return true
        }
        // A comment first, so the browser sees the stream open at once.
        continuation.yield(ByteBuffer(string: ": pepper\n\n"))
        guard accepted else {
            continuation.finish()
            return Response(status: .ok, headers: headers, body: ResponseBody(asyncSequence: stream))
        }
        let producer = Task {
            await produce(continuation)
            continuation.finish()
        }
        let heartbeat = self.heartbeat
        let beat = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: heartbeat)
                continuation.yield(ByteBuffer(string: ":\n\n"))
            }
        }
        continuation.onTermination = { [weak self] _ in
            producer.cancel()
            beat.cancel()
            self?.state.withLockedValue { $0.open[id] = nil }
        }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // However this ends (the stream finished, a write failed because the client
                // went), finishing the continuation runs `onTermination` above.
                defer { continuation.finish() }
                for await chunk in stream { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }
}
