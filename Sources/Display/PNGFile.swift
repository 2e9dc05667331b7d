import CLinux
import CPNG

/// PNG encoding and decoding through libpng's simplified API, which reports
/// errors as return values (the classic API longjmps, which Swift cannot catch).
public enum PNGFile {
    // png.h format flags (the importer does not see these macros).
    /// B, G, R, A bytes: the memory layout of a little-endian XRGB8888 word.
    static let formatBGRA: UInt32 = 0x02 | 0x01 | 0x10
    static let imageVersion: UInt32 = 1

    /// Writes an XRGB8888 image (stride in pixels) as an 8-bit RGB PNG,
    /// encoded row by row from `pixels` (no converted copy of the image).
    /// Returns libpng's message on failure.
    public static func write(path: String, width: Int, height: Int, stride: Int,
                             pixels: UnsafeBufferPointer<UInt32>) -> String? {
        guard width > 0, height > 0, stride >= width, pixels.count >= stride * (height - 1) + width,
              let base = pixels.baseAddress else {
            return "bad image geometry \(width)x\(height)"
        }
        var message = [CChar](repeating: 0, count: 128)
        let ok = message.withUnsafeMutableBufferPointer { m in
            guard let text = m.baseAddress else { return false }
            return nn_png_write_xrgb(path, UInt32(width), UInt32(height), base, stride, text) == 0
        }
        if ok { return nil }
        return message.withUnsafeBufferPointer { m in
            String(decoding: m.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Reads any PNG as XRGB8888 words (alpha byte kept as read).
    public static func read(path: String) -> (width: Int, height: Int, pixels: [UInt32])? {
        var image = png_image()
        image.version = imageVersion
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            png_image_free(&image)
            return nil
        }
        image.format = formatBGRA
        let w = Int(image.width), h = Int(image.height)
        guard w > 0, h > 0, w * h <= 64 * 1024 * 1024 else {
            png_image_free(&image)
            return nil
        }
        var pixels = [UInt32](repeating: 0, count: w * h)
        let ok = pixels.withUnsafeMutableBytes { raw in
            png_image_finish_read(&image, nil, raw.baseAddress, Int32(w * 4), nil)
        }
        png_image_free(&image)
        return ok != 0 ? (w, h, pixels) : nil
    }
}
