import Foundation
import Screens

/// The DNS screen's 24-hour chart as inline SVG, drawn on the server (no script, no external
/// file). Only numbers and the console's own labels go into it.
enum BarChart {
    static func svg(_ bars: [DNSScreen.Bar]) -> String {
        let width = 720.0
        let height = 180.0
        let top = 10.0
        let bottom = 24.0
        let left = 40.0
        let plot = height - top - bottom
        let maximum = max(bars.map(\.total).max() ?? 0, 1)
        let step = (width - left) / Double(max(bars.count, 1))
        let total = bars.reduce(0) { $0 + $1.total }
        let blocked = bars.reduce(0) { $0 + $1.blocked }
        var parts: [String] = []
        parts.append(
            #"<svg class="chart" viewBox="0 0 \#(Int(width)) \#(Int(height))" role="img" aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">"#
        )
        parts.append(#"<title id="chart-title">DNS queries per hour, last 24 hours</title>"#)
        parts.append(
            #"<desc id="chart-desc">\#(total) queries in all, \#(blocked) blocked; the busiest hour had \#(bars.map(\.total).max() ?? 0).</desc>"#
        )
        parts.append(#"<text x="0" y="\#(Int(top + 8))">\#(maximum)</text><text x="0" y="\#(Int(top + plot))">0</text>"#)
        for (index, bar) in bars.enumerated() {
            let x = left + Double(index) * step
            let totalHeight = plot * Double(bar.total) / Double(maximum)
            let blockedHeight = plot * Double(bar.blocked) / Double(maximum)
            let barWidth = max(step - 2, 1)
            parts.append(
                String(
                    format: #"<rect class="total" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>"#, x, top + plot - totalHeight, barWidth,
                    totalHeight))
            if bar.blocked > 0 {
                parts.append(
                    String(
                        format: #"<rect class="blocked" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>"#, x, top + plot - blockedHeight,
                        barWidth, blockedHeight))
            }
            if index % 6 == 0 {
                parts.append(String(format: #"<text x="%.1f" y="%.1f">%@</text>"#, x, height - 6, Format.hour(bar.hour)))
            }
        }
        parts.append("</svg>")
        return parts.joined()
    }
}
