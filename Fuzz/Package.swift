// swift-tools-version: 6.0
// Coverage-guided fuzz targets for the head unit's parsers and protocol state
// machines (libFuzzer). Not part of the firmware: a package of its own that
// depends on the firmware package by path. Build and run with scripts/fuzz.
import PackageDescription

// A path dependency is named after its folder, which depends on where the
// repository is checked out.
let firmware = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? ""

let package = Package(
    name: "NavigationNotifierFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // One libFuzzer binary holding every target; scripts/fuzz picks one
        // per run with FUZZ_TARGET.
        .executableTarget(name: "fuzz", dependencies: [.product(name: "HeadUnitLayers", package: firmware)]),
    ],
    swiftLanguageModes: [.v5]
)
