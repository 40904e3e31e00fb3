import Foundation

/// One environment variable at a time. `ProcessInfo.processInfo.environment` copies the whole
/// environment into a dictionary on each call, which shows in the start-up of a short command.
public enum ProcessEnvironment {
    /// The variable's value, nil when it is unset or empty.
    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let text = String(cString: raw)
        return text.isEmpty ? nil : text
    }
}
