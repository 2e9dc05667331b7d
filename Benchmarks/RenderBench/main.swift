// Render benchmark: median time of a full redraw of the navigation+music
// screen at 800x480 and 1920x1080, and of a partial redraw after a distance
// change, in English and (-scripts) with Arabic and Japanese text; glyph
// cache size. Build in release:
//   swift build -c release --product render-bench && .build/release/render-bench
// Instruction counts: Benchmarks/RenderBench/callgrind.sh
import Glibc
import Graphics
import Screens
import ScreenValues

let root: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

func model(distance: String, scripts: Bool) -> ScreenModel {
    // The -scripts scenarios: an Arabic instruction (shaped, right to left)
    // and a Japanese track, through the script fonts.
    let message = scripts ? "انعطف يسارًا إلى شارع الملك فهد باتجاه ميدان التحرير" : "Turn left onto Market Street toward Union Square"
    return ScreenModel(pairing: .connected(server: "Alice's iPhone"), clock: "21:17", dropped: [0, 0, 1, 0, 4, 0, 2],
                       navigation: NavigationInstruction(title: distance, message: message, app: "com.google.Maps"),
                       nowPlaying: NowPlaying(title: scripts ? "戦場のメリークリスマス" : "Bohemian Rhapsody",
                                              artist: scripts ? "坂本龍一" : "Queen", album: "A Night at the Opera",
                                              elapsed: 83, duration: 355, playing: true),
                       theme: .night)
}

enum Scenario: String {
    case full800 = "full-800x480", full1080 = "full-1920x1080", partial800 = "partial-800x480", partial1080 = "partial-1920x1080"
    case full800Scripts = "full-800x480-scripts", partial800Scripts = "partial-800x480-scripts"

    var size: Size {
        switch self {
        case .full800, .partial800, .full800Scripts, .partial800Scripts: return Size(width: 800, height: 480)
        case .full1080, .partial1080: return Size(width: 1920, height: 1080)
        }
    }
    var partial: Bool { self == .partial800 || self == .partial1080 || self == .partial800Scripts }
    var scripts: Bool { self == .full800Scripts || self == .partial800Scripts }
}

/// Runs `iterations` redraws after a warm-up; returns each one's milliseconds.
func run(_ s: Scenario, fonts: Fonts, iterations: Int, timed: Bool) -> [Double] {
    let canvas = Canvas(size: s.size)
    let renderer = ScreenRenderer(fonts: fonts)
    let a = model(distance: "350 m", scripts: s.scripts), b = model(distance: "300 m", scripts: s.scripts)
    for i in 0..<10 { renderer.render(i % 2 == 0 ? a : b, on: canvas) }
    var times: [Double] = []
    times.reserveCapacity(iterations)
    for i in 0..<iterations {
        let m = i % 2 == 0 ? a : b
        if !s.partial { renderer.invalidate() }
        let t0 = timed ? now() : 0
        renderer.render(m, on: canvas)
        if timed { times.append(now() - t0) }
        _ = canvas.takeDamage()
    }
    return times
}

func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
}

func format(_ ms: Double) -> String {
    let us = Int((ms * 1000).rounded())
    return "\(us / 1000).\(String(repeating: "0", count: 3 - String(us % 1000).count))\(us % 1000) ms"
}

let fonts: Fonts
do {
    let scripts = StandardFonts.locate(directory: nil) { access($0, R_OK) == 0 }
    for e in scripts.missing {
        print("render-bench: \(e.packageDirectory)/\(e.regular) missing: install \(e.package) (scripts/setup)")
        exit(1)
    }
    fonts = try Fonts(regular: root + "/fonts/DejaVuSans.ttf", bold: root + "/fonts/DejaVuSans-Bold.ttf",
                      scriptFonts: scripts.fonts)
} catch {
    print("render-bench: \(error.description)")
    exit(1)
}

let args = CommandLine.arguments
if args.count >= 4 && args[1] == "--only" {
    // For callgrind: one scenario, N untimed iterations.
    guard let s = Scenario(rawValue: args[2]), let n = Int(args[3]) else {
        print("usage: render-bench [--only SCENARIO N]")
        exit(2)
    }
    _ = run(s, fonts: fonts, iterations: n, timed: false)
    exit(0)
}

let iterations = args.count >= 2 ? Int(args[1]) ?? 300 : 300
for s in [Scenario.full800, .full1080, .partial800, .partial1080, .full800Scripts, .partial800Scripts] {
    let t = run(s, fonts: fonts, iterations: iterations, timed: true)
    print("\(s.rawValue): median \(format(median(t))) (min \(format(t.min() ?? 0)), \(iterations) runs)")
}
print("glyph cache: \(fonts.cache.bytes) bytes in \(fonts.cache.count) glyphs (budget \(fonts.cache.budget))")
// Worst case: add the huge passkey digits and the idle screen at 1920x1080.
let big = Canvas(size: Size(width: 1920, height: 1080))
let extra = ScreenRenderer(fonts: fonts)
extra.render(ScreenModel(pairing: .connecting(server: "Alice's iPhone"), clock: "21:17", passkey: "0123456789"), on: big)
extra.render(ScreenModel(pairing: .remembered(server: "Alice's iPhone"), clock: "21:17",
                         hint: "Phone forgot this head unit: pair again", actions: [.connect, .unpair]), on: big)
print("glyph cache after the pairing and idle screens at 1920x1080 too: \(fonts.cache.bytes) bytes in \(fonts.cache.count) glyphs")
