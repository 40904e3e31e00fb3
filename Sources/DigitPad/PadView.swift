import CSDL2
import DigitApp
import DigitKit
import DigitPadKit

/// The window on screen: one resizable SDL window, a renderer and a streaming texture that
/// mirrors the `Surface` the controller draws into. It shows the picture and reads it back;
/// what the picture holds is `PadController.render(into:)`'s business.
final class PadView {
    let window: OpaquePointer
    let renderer: OpaquePointer
    private var texture: OpaquePointer?
    private var textureWidth = 0
    private var textureHeight = 0
    let windowID: UInt32

    /// Opens the window. Throws `DigitError(.io)` with SDL's message when there is no display.
    init(title: String, width: Int, height: Int) throws {
        SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1")
        // Touches arrive as finger events; the mouse events SDL would synthesize from them are
        // ignored by id, and no touches are synthesized from the mouse.
        SDL_SetHint(SDL_HINT_MOUSE_TOUCH_EVENTS, "0")
        // The software renderer draws into the window's own pixels. Without this SDL may back
        // those pixels with a texture of a hidden GL renderer and upload all of them at every
        // present (1.5 ms a frame headless, with Mesa's software GL, against 0.07 ms).
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard SDL_Init(UInt32(SDL_INIT_VIDEO | SDL_INIT_EVENTS)) == 0 else {
            throw DigitError(.io, "cannot start SDL video: \(PadView.lastError())")
        }
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        guard let w = SDL_CreateWindow(title, CSDL2_WindowPosCentered(), CSDL2_WindowPosCentered(),
                                       Int32(width), Int32(height), flags) else {
            let message = PadView.lastError()
            SDL_Quit()
            throw DigitError(.io, "cannot open a window: \(message)")
        }
        SDL_SetWindowMinimumSize(w, 320, 240)
        // Keys are commands here, not text: no text input events, no input-method popups.
        SDL_StopTextInput()
        // Accelerated when there is a GPU, else software. Headless drivers get the software
        // renderer: an offscreen GL surface keeps its first size, so resizes would be lost.
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        let headless = driver == "offscreen" || driver == "dummy"
        var r = headless ? nil : SDL_CreateRenderer(w, -1, SDL_RENDERER_ACCELERATED.rawValue)
        if r == nil { r = SDL_CreateRenderer(w, -1, SDL_RENDERER_SOFTWARE.rawValue) }
        guard let r else {
            let message = PadView.lastError()
            SDL_DestroyWindow(w)
            SDL_Quit()
            throw DigitError(.io, "cannot create a renderer: \(message)")
        }
        window = w
        renderer = r
        windowID = SDL_GetWindowID(w)
        var info = SDL_RendererInfo()
        if SDL_GetRendererInfo(r, &info) == 0 {
            isSoftware = info.flags & SDL_RENDERER_SOFTWARE.rawValue != 0
            rendererName = info.name.map { String(cString: $0) } ?? "unknown"
        }
    }

    /// The software renderer draws straight into the window's pixels, which persist between
    /// frames, so only the changed rectangle needs copying; GPU renderers need the whole picture
    /// every frame (their back buffer is undefined after presenting).
    private(set) var isSoftware = false
    private(set) var rendererName = "unknown"
    private var needsFullCopy = true

    /// Our pixels are 0xFFRRGGBB, valid both as ARGB8888 and as RGB888 (XRGB, top byte unused);
    /// taking the window's format when it is one of them makes the software copy a plain memcpy.
    private var textureFormat: UInt32 {
        let format = SDL_GetWindowPixelFormat(window)
        return format == SDL_PIXELFORMAT_RGB888.rawValue ? format : CSDL2_PixelFormatARGB8888()
    }

    /// The next `present` copies the whole picture (after the window was exposed or resized).
    func setNeedsFullCopy() { needsFullCopy = true }

    // No deinit that destroys the window and quits SDL: the window lives as long as the program,
    // and the X server removes it when the program ends. Under X11, SDL 2 wakes its event wait
    // by sending an event to the window over a second connection, and the server may handle the
    // last such wake-up after the window's destruction from the first connection when they come
    // close together (the window tests saw it in a quarter of the runs that resized the window):
    // Xlib then reports BadWindow at SDL_Quit and ends the program with status 1.

    static func lastError() -> String {
        guard let text = SDL_GetError() else { return "unknown SDL error" }
        let s = String(cString: text)
        return s.isEmpty ? "unknown SDL error" : s
    }

    /// The drawable size in pixels (larger than the window size on high-DPI screens).
    var outputSize: (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        if SDL_GetRendererOutputSize(renderer, &w, &h) != 0 {
            SDL_GetWindowSize(window, &w, &h)
        }
        return (Int(max(w, 1)), Int(max(h, 1)))
    }

    /// The window size in the coordinates of mouse events.
    var windowSize: (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        return (Int(max(w, 1)), Int(max(h, 1)))
    }

    /// Render pixels per window coordinate (1 except on high-DPI screens).
    var pixelScale: (x: Float, y: Float) {
        let o = outputSize, w = windowSize
        return (Float(o.width) / Float(w.width), Float(o.height) / Float(w.height))
    }

    func setSize(width: Int, height: Int) {
        SDL_SetWindowSize(window, Int32(width), Int32(height))
    }

    /// Pixels read back from the renderer: ARGB8888, row-major, y downward.
    struct Capture {
        var width: Int
        var height: Int
        var pixels: [UInt32]
    }

    /// Copies the changed part of `surface` into the texture, then shows it. With `capture`,
    /// returns what the renderer drew, read back just before presenting.
    @discardableResult
    func present(_ surface: inout Surface, capture: Bool = false) -> Capture? {
        if texture == nil || textureWidth != surface.width || textureHeight != surface.height {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, textureFormat, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(surface.width), Int32(surface.height))
            // The picture is opaque: copying it is enough. (Blending, SDL's default for a format
            // with alpha, made the software renderer ten times slower.)
            if let texture { SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_NONE) }
            textureWidth = surface.width
            textureHeight = surface.height
            surface.markDirty(surface.bounds)
            needsFullCopy = true
        }
        guard let texture else { return nil }
        let dirty = surface.takeDirty()
        let width = surface.width
        surface.pixels.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            for d in dirty {
                var rect = SDL_Rect(x: Int32(d.x), y: Int32(d.y), w: Int32(d.width), h: Int32(d.height))
                _ = SDL_UpdateTexture(texture, &rect, base + (d.y * width + d.x) * 4, Int32(width * 4))
            }
        }
        // The texture covers the whole output, so there is nothing to clear first.
        let output = outputSize
        if isSoftware && !needsFullCopy && !capture && output.width == surface.width && output.height == surface.height {
            for d in dirty {
                var rect = SDL_Rect(x: Int32(d.x), y: Int32(d.y), w: Int32(d.width), h: Int32(d.height))
                SDL_RenderCopy(renderer, texture, &rect, &rect)
            }
        } else {
            SDL_RenderCopy(renderer, texture, nil, nil)
            needsFullCopy = false
        }
        var captured: Capture?
        if capture {
            let o = outputSize
            var pixels = [UInt32](repeating: 0, count: o.width * o.height)
            let ok = pixels.withUnsafeMutableBytes { raw in
                SDL_RenderReadPixels(renderer, nil, CSDL2_PixelFormatARGB8888(), raw.baseAddress, Int32(o.width * 4)) == 0
            }
            if ok { captured = Capture(width: o.width, height: o.height, pixels: pixels) }
        }
        SDL_RenderPresent(renderer)
        return captured
    }
}

extension PadView {
    /// The picture as a PNG file's bytes: `surface` presented once more and read back from the
    /// renderer, so the file holds what the window shows. Throws `DigitError(.io)` with SDL's
    /// message when the pixels cannot be read.
    func screenshotPNG(of surface: inout Surface) throws -> [UInt8] {
        guard let shot = present(&surface, capture: true) else {
            throw DigitError(.io, "cannot read the window's pixels: \(PadView.lastError())")
        }
        var rgb: [UInt8] = []
        rgb.reserveCapacity(shot.pixels.count * 3)
        for p in shot.pixels {
            rgb += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p)]
        }
        return try PNG.encode(rgb: rgb, width: shot.width, height: shot.height)
    }
}
