import CLinux
import CPNG

/// PNG encoding and decoding through libpng's simplified API, which reports
/// errors as return values (the classic API longjmps, which Swift cannot catch).
public enum PNGFile {
    // png.h format flags (the importer does not see these macros).
    static let formatRGB: UInt32 = 0x02
    /// B, G, R, A bytes: the memory layout of a little-endian XRGB8888 word.
    static let formatBGRA: UInt32 = 0x02 | 0x01 | 0x10
    static let imageVersion: UInt32 = 1

    /// Writes an XRGB8888 image (stride in pixels) as an 8-bit RGB PNG.
    /// Returns libpng's message on failure.
    public static func write(path: String, width: Int, height: Int, stride: Int,
                             pixels: UnsafeBufferPointer<UInt32>) -> String? {
        guard width > 0, height > 0, stride >= width, pixels.count >= stride * (height - 1) + width else {
            return "bad image geometry \(width)x\(height)"
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                var o = y * width * 3
                var i = y * stride
                for _ in 0..<width {
                    let v = pixels[i]
                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                    o += 3
                    i += 1
                }
            }
        }
        var image = png_image()
        image.version = imageVersion
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = formatRGB
        let ok = rgb.withUnsafeBytes { raw in
            png_image_write_to_file(&image, path, 0, raw.baseAddress, Int32(width * 3), nil)
        }
        if ok == 0 {
            let message = messageOf(&image)
            png_image_free(&image)
            return message
        }
        return nil
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

    private static func messageOf(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
