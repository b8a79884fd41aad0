#if !canImport(ObjectiveC)
/// Carries a value that the shims' defaults hand from one form of a method to the other (the
/// completion-handler form and the `async` one): what the Objective-C bridge does on Apple
/// platforms, without its checks.
struct ShimTransfer<Value>: @unchecked Sendable {
    let value: Value
}
#endif
