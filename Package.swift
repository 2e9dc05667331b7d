// swift-tools-version: 6.0
// NavigationNotifier head-unit firmware.
//
// One module per layer. Everything under Sources/ compiles both as normal
// Swift (host build, tests) and as Embedded Swift for aarch64 (the firmware):
// no Foundation, typed throws, no non-class existentials.
import PackageDescription

/// C libraries, reached through module maps (Sources/C*/module.modulemap).
let cModules: [Target] = [
    .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
    .systemLibrary(name: "CBlueZ", path: "Sources/CBlueZ"),
    .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
    .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2"),
    .systemLibrary(name: "CDRM", path: "Sources/CDRM", pkgConfig: "libdrm"),
    .systemLibrary(name: "CPNG", path: "Sources/CPNG"),
]

let package = Package(
    name: "NavigationNotifier",
    products: [
        .executable(name: "headunit", targets: ["headunit"]),
    ],
    targets: cModules + [
        // Bytes, UUIDs, addresses, time and logging shared by every layer.
        .target(name: "BluetoothCore"),
        // Sans-I/O protocol layers.
        .target(name: "HCI", dependencies: ["BluetoothCore"]),
        // Linux platform layer: poll(2) loop, transports, files, btsnoop.
        .target(name: "Platform", dependencies: ["BluetoothCore", "HCI", "CLinux", "CBlueZ"]),
        // The program.
        .target(name: "HeadUnit", dependencies: ["BluetoothCore", "HCI", "Platform"]),
        .executableTarget(name: "headunit", dependencies: ["HeadUnit"]),

        // Software renderer and FreeType text (sans-I/O: draws into memory).
        .target(name: "Graphics", dependencies: ["BluetoothCore", "CFreeType"]),
        // The head-unit screens, drawn from a plain ScreenModel value.
        .target(name: "Screens", dependencies: ["Graphics"]),
        // Linux display outputs: DRM/KMS, fbdev, PNG files.
        .target(name: "Display", dependencies: ["BluetoothCore", "Graphics", "CLinux", "CDRM", "CPNG"]),
        // Rendering benchmark (not part of the firmware).
        .executableTarget(name: "render-bench", dependencies: ["Graphics", "Screens"],
                          path: "Benchmarks/RenderBench", exclude: ["callgrind.sh"]),

        .testTarget(name: "BluetoothCoreTests", dependencies: ["BluetoothCore"]),
        .testTarget(name: "HCITests", dependencies: ["HCI"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "HCI"]),
        .testTarget(name: "IntegrationTests", dependencies: ["BluetoothCore"]),
        .testTarget(name: "GraphicsTests", dependencies: ["Graphics", "Display"]),
        .testTarget(name: "ScreensTests", dependencies: ["Screens", "Graphics", "Display"], exclude: ["Golden"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "Graphics"]),
    ],
    swiftLanguageModes: [.v5]
)
