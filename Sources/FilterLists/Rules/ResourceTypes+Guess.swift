extension ResourceTypes {
    /// The type of a request judged without one given: from the address's file extension
    /// (`.js` a script, `.png` an image, …), else ``other``.
    public static func guess(forURL url: String) -> ResourceTypes {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "js", "mjs": return .script
        case "css": return .stylesheet
        case "png", "jpg", "jpeg", "gif", "webp", "svg", "ico", "avif": return .image
        case "woff", "woff2", "ttf", "otf": return .font
        case "mp4", "webm", "mp3", "m4a", "ogg": return .media
        case "html", "htm": return .subdocument
        default: return .other
        }
    }
}
