import Foundation
import Mustache

/// Finds the names a template uses that its view does not have.
///
/// Mustache renders a name no object on its stack has as nothing, so a misspelt key or a view
/// property renamed without its template gives a page with a hole and status 200. While a
/// check runs, every view the template sees is wrapped in a ``CheckedView``: it answers the
/// lookups as Mustache's own reflection would, and notes every property name it saw and every
/// name the bottom of the stack was asked for and did not have. A name asked there and declared
/// nowhere is missing. (A name declared by some other view of the same page is not noticed.)
///
/// One check belongs to one render, on one thread.
final class TemplateKeyCheck {
    private var declared: Set<String> = []
    private var askedOfRoot: Set<String> = []

    /// The names the template used that no view of the render declares, sorted.
    var missing: [String] { askedOfRoot.subtracting(declared).sorted() }

    /// `view` as the bottom of the stack.
    func root(_ view: Any) -> Any { CheckedView(value: view, check: self, isRoot: true) }

    /// `value` as Mustache should see it: views wrapped, sequences with their elements wrapped,
    /// everything else (text, numbers, Booleans) as it is.
    fileprivate func wrap(_ value: Any) -> Any {
        if value is String || value is Bool || value is any Numeric || value is MustacheParent { return value }
        if let array = value as? [Any] { return array.map(wrap) }
        switch Mirror(reflecting: value).displayStyle {
        case .struct?, .class?: return CheckedView(value: value, check: self, isRoot: false)
        default: return value
        }
    }

    fileprivate func declare(_ mirror: Mirror) {
        for child in mirror.children { if let label = child.label { declared.insert(label) } }
    }

    fileprivate func askedOfRoot(_ name: String) { askedOfRoot.insert(name) }
}

/// A view under a ``TemplateKeyCheck``.
private struct CheckedView: MustacheParent, CustomStringConvertible {
    let value: Any
    let check: TemplateKeyCheck
    let isRoot: Bool

    func child(named name: String) -> Any? {
        let mirror = Mirror(reflecting: value)
        check.declare(mirror)
        guard let found = mirror.children.first(where: { $0.label == name }) else {
            if isRoot { check.askedOfRoot(name) }
            return nil
        }
        // As Mustache does: an optional property is its value, or nothing.
        let optional = Mirror(reflecting: found.value)
        if optional.displayStyle == .optional {
            guard let wrapped = optional.children.first?.value else { return nil }
            return check.wrap(wrapped)
        }
        return check.wrap(found.value)
    }

    var description: String { String(describing: value) }
}
