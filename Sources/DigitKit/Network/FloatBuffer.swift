/// A fixed-size, 64-byte aligned, zero-initialized float array owned by a class, so hot loops
/// work on raw pointers with no copy-on-write checks or bounds checks. Sizes come from the
/// network's own shapes (validated when the model is loaded), never from untrusted input.
public final class FloatBuffer: @unchecked Sendable {
    public let count: Int
    public let pointer: UnsafeMutablePointer<Float>

    public init(count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4 + 64, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
    }

    public convenience init(_ values: [Float]) {
        self.init(count: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { UnsafeMutableRawPointer(pointer).deallocate() }

    public subscript(i: Int) -> Float {
        get { pointer[i] }
        set { pointer[i] = newValue }
    }

    public func zero() { pointer.update(repeating: 0, count: count) }

    /// Copies `values` (at most `count` of them) to the start of the buffer.
    public func set(_ values: [Float]) {
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: min(values.count, count)) }
    }

    public var array: [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}
