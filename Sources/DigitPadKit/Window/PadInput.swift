/// Who is drawing: the mouse (a pen that SDL reports as a mouse counts as the mouse) or one
/// finger of a touch screen (a pen reported as touch counts as a finger).
public enum PointerID: Hashable, Sendable {
    case mouse
    case finger(Int64)
}

/// Keyboard commands, already decoded from key codes and modifiers.
public enum PadKey: Equatable, Sendable {
    case clear
    case undo
    case save
    case open
    /// A digit key: appends the digit to the label the next save writes.
    case digit(Int)
    /// L: clears the typed label (back to `--label`'s, if any).
    case clearLabel
    /// A: learn the writer's hand from the labelled drawings saved (`PadAdaptation`).
    case adapt
    case quit
}

/// An input event in window pixels (continuous coordinates, y downward). `time` is in seconds
/// on any clock that does not go backwards; `pressure` is 0…1 when the device reports it.
public enum PadInput: Equatable, Sendable {
    /// `button` uses SDL's numbering: 1 = primary, 2 = middle, 3 = secondary. Touches are 1.
    case press(PointerID, x: Float, y: Float, button: Int, time: Double, pressure: Float?)
    case move(PointerID, x: Float, y: Float, time: Double, pressure: Float?)
    case release(PointerID, x: Float, y: Float, button: Int, time: Double)
    case key(PadKey)
    /// The drawable size changed (render pixels).
    case resize(width: Int, height: Int)
    /// The window lost the keyboard focus or the pointer: a stroke in progress ends.
    case focusLost
}

/// What the controller asks the program around it to do.
public enum PadEffect: Equatable, Sendable {
    /// Read the current drawing. `live` is true while a stroke is being drawn; the others (a
    /// stroke's end, undo, clear) are the changes `--print` reports.
    case recognize(live: Bool)
    case save
    case open
    /// Learn a personal profile from the labelled drawings saved, and read with it.
    case adapt
    case quit
}
