public enum DigitKitVersion { public static let string = "0.1.0" }
