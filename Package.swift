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
    // HarfBuzz with hb-ft.h, which needs FreeType's include folder (see its shim.h).
    .systemLibrary(name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "freetype2"),
    .systemLibrary(name: "CFriBidi", path: "Sources/CFriBidi", pkgConfig: "fribidi"),
    .systemLibrary(name: "CThai", path: "Sources/CThai"),
    .systemLibrary(name: "CDRM", path: "Sources/CDRM", pkgConfig: "libdrm"),
    .systemLibrary(name: "CPNG", path: "Sources/CPNG"),
]

/// libcrypto in release builds: the archive, not the shared library. Linked
/// whole, the shared library's symbol and relocation tables and the pages
/// around every function its start-up touches were 3.8 MB of the head
/// unit's resident memory; from the archive the linker takes only the
/// objects the head unit calls into, and they are laid out with the rest of
/// the program (headunit.order). The module map's `link "crypto"` is turned
/// off in release builds (below) so that the shared library is not taken
/// first; debug builds and the tests link the shared library as before.
let staticCrypto: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "-l:libcrypto.a"], .when(configuration: .release))]

/// How the release head unit is linked: the resident set over a drive is
/// mostly code pages, and the kernel maps a file's pages 64 KiB around each
/// fault, so what counts is how many 64 KiB windows the code that runs is
/// spread over (BENCHMARKS.md, Memory).
/// - `-static-stdlib`: the Swift runtime from its archives, only what is used.
/// - lld with `headunit.order`: the functions a drive runs (a profile of
///   scripts/demo's drive, made by scripts/order-headunit) placed together
///   at the start of the text, so they share pages instead of each pulling
///   in 64 KiB of functions that never run. A function missing from the
///   list is linked as before, only placed after the listed ones.
/// - `--no-export-dynamic`: the runtime's static-stdlib arguments export
///   every symbol of the program, 0.7 MB of dynamic symbol tables that the
///   loader reads at start to resolve the shared libraries' symbols;
///   nothing loads the program as a library or looks its symbols up.
/// - `-z pack-relative-relocs`: the relative relocations of the
///   position-independent program (one per pointer in Swift metadata) as
///   DT_RELR bitmaps instead of 24-byte RELA entries (0.5 MB), as the
///   firmware is linked (scripts/build-aarch64); glibc 2.36 reads them.
/// - libstdc++ (the Swift runtime is C++) from its archive: the runtime's
///   static-stdlib arguments name `-lstdc++` before any flag of ours, so
///   `link/` comes first on the library path and its `libstdc++.so` is a
///   linker script that names `libstdc++.a` (as glibc's libc.so names its
///   parts). Only the objects the runtime calls into are linked, and the
///   order file places the ones the drive runs with the rest; the shared
///   library was 1.0 MB of the resident set.
let headunitReleaseLinking: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-use-ld=lld",
                  "-L", "\(Context.packageDirectory)/Sources/headunit/link",
                  "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/headunit/headunit.order",
                  "-Xlinker", "--no-warn-symbol-ordering",
                  "-Xlinker", "--no-export-dynamic",
                  "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(configuration: .release)),
]

let package = Package(
    name: "NavigationNotifier",
    products: [
        .executable(name: "headunit", targets: ["headunit"]),
        // The parsers and state machines, for the fuzz targets in Fuzz/ (a
        // separate package that depends on this one by path).
        // Not the I/O shell (App, Drivers, Platform, Display): what a fuzzer
        // feeds bytes to has no file, socket or clock of its own.
        .library(name: "HeadUnitLayers", targets: ["BluetoothCore", "HCI", "L2CAP", "ATT", "GATT", "SMP",
                                                   "ANCS", "AMS", "NavigationNotifier", "Console", "Config", "Input", "HeadUnitCore",
                                                   "JSON", "NotifBridge", "HPKE", "Guidance", "Graphics", "GhostDrop", "Update"]),
    ],
    targets: cModules + [
        // Bytes, UUIDs, addresses, time and logging shared by every layer.
        .target(name: "BluetoothCore"),
        // Sans-I/O protocol layers.
        .target(name: "HCI", dependencies: ["BluetoothCore"]),
        .target(name: "L2CAP", dependencies: ["BluetoothCore"]),
        .target(name: "ATT", dependencies: ["BluetoothCore"]),
        .target(name: "GATT", dependencies: ["BluetoothCore", "ATT"]),
        // Apple Notification Center Service and Apple Media Service clients (docs/PROTOCOL.md §2, §3).
        .target(name: "ANCS", dependencies: ["BluetoothCore"]),
        .target(name: "AMS", dependencies: ["BluetoothCore"]),
        // A small bounded JSON parser and writer, and base64 (no Foundation).
        .target(name: "JSON", dependencies: ["BluetoothCore"]),
        // The NotifBridge receiver (iOS AccessoryNotifications forwarding): framing,
        // messages, keys and deliveries, sans-I/O (docs/NOTIFBRIDGE.md).
        .target(name: "NotifBridge", dependencies: ["BluetoothCore", "JSON", "ATT", "GATT", "HPKE"]),
        // What the head unit shows: the Maps/Music filter and the notification model (docs/PROTOCOL.md §4).
        .target(name: "Notifications", dependencies: ["BluetoothCore", "ANCS", "Guidance"]),
        // What a navigation instruction says, in the phone's language: maneuver, roundabout exit, distance (sans-I/O).
        .target(name: "Guidance"),
        // NotifBridge cryptography: ML-KEM-768, X-Wing, the HPKE key schedule and AES-256-GCM (libcrypto underneath).
        .target(name: "HPKE", dependencies: ["CCrypto"], linkerSettings: staticCrypto),
        // The GhostDrop receiver (file transfer from the phone): GHST frames, their JSON, the
        // P-256/HKDF/AES-GCM handshake and the receiving session, sans-I/O (docs/GHOSTDROP.md).
        .target(name: "GhostDrop", dependencies: ["BluetoothCore", "JSON", "SMP", "HPKE", "CCrypto"]),
        // The NavigationNotifier service: the pairing routine and its name exchange (docs/PROTOCOL.md §1).
        .target(name: "NavigationNotifier", dependencies: ["BluetoothCore", "SMP", "ScreenValues"]),
        // Security Manager: pairing, bonding, key derivation (OpenSSL's libcrypto).
        .target(name: "SMP", dependencies: ["BluetoothCore", "CCrypto"], linkerSettings: staticCrypto),
        // Linux platform layer: the poll(2) loop, the clock, files.
        .target(name: "Platform", dependencies: ["BluetoothCore", "CLinux"]),
        // Linux drivers on that loop: the HCI driver and its transports (user
        // channel, hci_uart, TCP) and its btsnoop trace, evdev input devices,
        // the serial console, the watchdog.
        .target(name: "Drivers", dependencies: ["BluetoothCore", "HCI", "Input", "Platform", "CLinux", "CBlueZ"]),
        // evdev input (sans-I/O): touch taps, media keys, the confirm key.
        .target(name: "Input", dependencies: ["BluetoothCore"]),
        // The diagnostics console's command language (sans-I/O).
        .target(name: "Console", dependencies: ["BluetoothCore", "ANCS", "AMS"]),
        // The configuration file (sans-I/O): parsed into the layers' settings
        // values (no renderer, no cryptography underneath).
        .target(name: "Config", dependencies: ["BluetoothCore", "ANCS", "Notifications", "HCI", "Input", "ScreenValues",
                                               "DisplaySettings"]),
        // The head unit without I/O (sans-I/O): the layers wired, one PhoneLink per connection.
        .target(name: "HeadUnitCore", dependencies: ["BluetoothCore", "HCI", "L2CAP", "ATT", "GATT", "SMP", "NavigationNotifier", "ANCS", "AMS",
                                               "Notifications", "ScreenValues", "Console", "Input", "NotifBridge", "GhostDrop", "Update"]),
        // A/B updates (sans-I/O): the signed bundle's header, manifest, Ed25519
        // signature and streamed SHA-256 checks (docs/UPDATES.md).
        .target(name: "Update", dependencies: ["CCrypto"], linkerSettings: staticCrypto),
        // The program: the core's I/O shell (loop, transport, files, display, console, input).
        .target(name: "App", dependencies: ["BluetoothCore", "HCI", "SMP", "NavigationNotifier", "ANCS", "AMS", "Notifications",
                                      "Graphics", "Screens", "ScreenValues", "DisplaySettings", "Display", "Config", "Console", "Input", "Platform", "Drivers", "HeadUnitCore", "HPKE", "Guidance",
                                      "NotifBridge", "GhostDrop", "Update", "CLinux"]),
        // Release: the Swift runtime linked in statically, so only the parts
        // used are loaded instead of every runtime library, and laid out for
        // a small resident set (`headunitReleaseLinking`, BENCHMARKS.md).
        .executableTarget(name: "headunit", dependencies: ["App", "Platform"], exclude: ["headunit.order", "link"],
                          linkerSettings: headunitReleaseLinking),

        // What the core and the screen share, as plain values: the screen
        // model, the pairing state, the screen's language and its words.
        .target(name: "ScreenValues", dependencies: ["Guidance"]),
        // Where frames go and how the panel is mounted, as the configuration
        // and the command line give them (plain values; Display opens them).
        .target(name: "DisplaySettings"),
        // Software renderer and text: FriBidi orders, HarfBuzz shapes, FreeType
        // rasterises (sans-I/O: draws into memory).
        .target(name: "Graphics", dependencies: ["BluetoothCore", "DisplaySettings", "CFreeType", "CHarfBuzz", "CFriBidi", "CThai"],
                linkerSettings: [.linkedLibrary("m")]),
        // The head-unit screens, drawn from a plain ScreenModel value.
        .target(name: "Screens", dependencies: ["Graphics", "ScreenValues", "Guidance"]),
        // Linux display outputs: DRM/KMS, fbdev, PNG files.
        .target(name: "Display", dependencies: ["BluetoothCore", "Graphics", "DisplaySettings", "CLinux", "CDRM", "CPNG"]),
        // Rendering benchmark (not part of the firmware).
        .executableTarget(name: "render-bench", dependencies: ["Graphics", "Screens", "ScreenValues"],
                          path: "Benchmarks/RenderBench", exclude: ["callgrind.sh"]),
        // Receive-path benchmark: H4 bytes into the head-unit core, to the notification model (not part of the firmware).
        .executableTarget(name: "pipeline-bench", dependencies: ["BluetoothCore", "HeadUnitCore", "SMP", "ScriptedPeers"],
                          path: "Benchmarks/PipelineBench"),
        // The constant-time check of ML-KEM decapsulation under valgrind memcheck (scripts/ct-check; not part of the firmware).
        // DWARF 4: valgrind 3.19 cannot read the DWARF 5 that clang writes for C by default.
        .target(name: "CMemcheck", path: "Tools/CMemcheck", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .executableTarget(name: "ct-check", dependencies: ["HPKE", "CMemcheck"], path: "Tools/ConstantTimeCheck"),
        // The side by side's floor: the head unit's system calls for one notification alone (not part of the firmware).
        .executableTarget(name: "syscall-floor", dependencies: ["CLinux"], path: "Benchmarks/SyscallFloor"),
        // NotifBridge cryptography benchmark: key activation and one envelope (not part of the firmware).
        .executableTarget(name: "hpke-bench", dependencies: ["App", "Platform"], path: "Benchmarks/HPKEBench"),

        // What the tests and the pipeline benchmark run against, in one place
        // (not part of the firmware): a scripted controller, the phone's GATT
        // side and the core wired to both in virtual time; the phone's SMP.
        .target(name: "ScriptedPeers", dependencies: ["BluetoothCore", "HCI", "ATT", "GATT", "ANCS", "NavigationNotifier", "Console", "HeadUnitCore"],
                path: "Tests/Support/ScriptedPeers"),
        .target(name: "ScriptedPairing", dependencies: ["BluetoothCore", "SMP"], path: "Tests/Support/ScriptedPairing"),
        // The simulated phone's recorded GhostDrop transfer, for the receiver's tests and the core's.
        .target(name: "GhostDropFixture", dependencies: ["BluetoothCore", "GhostDrop", "JSON"], path: "Tests/Support/GhostDropFixture"),

        .testTarget(name: "BluetoothCoreTests", dependencies: ["BluetoothCore"]),
        .testTarget(name: "HCITests", dependencies: ["HCI", "BluetoothCore", "ScriptedPeers"]),
        .testTarget(name: "L2CAPTests", dependencies: ["L2CAP", "BluetoothCore"]),
        .testTarget(name: "ATTTests", dependencies: ["ATT", "BluetoothCore"]),
        .testTarget(name: "GATTTests", dependencies: ["GATT", "ATT", "BluetoothCore", "CCrypto"]),
        .testTarget(name: "SMPTests", dependencies: ["SMP", "BluetoothCore", "ScriptedPairing"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "BluetoothCore", "CLinux"]),
        .testTarget(name: "DriversTests", dependencies: ["Drivers", "Platform", "HCI", "Input", "BluetoothCore", "CLinux"]),
        .testTarget(name: "NavigationNotifierTests", dependencies: ["NavigationNotifier", "SMP", "BluetoothCore"]),
        .testTarget(name: "HPKETests", dependencies: ["HPKE"], exclude: ["Vectors"]),
        .testTarget(name: "ANCSTests", dependencies: ["ANCS", "BluetoothCore"]),
        .testTarget(name: "AMSTests", dependencies: ["AMS", "BluetoothCore"]),
        .testTarget(name: "GuidanceTests", dependencies: ["Guidance"]),
        .testTarget(name: "NotificationsTests", dependencies: ["Notifications", "ANCS", "BluetoothCore", "HeadUnitCore", "ScriptedPeers", "SMP"]),
        .testTarget(name: "AppTests", dependencies: ["App", "HeadUnitCore", "BluetoothCore", "Notifications", "ANCS", "SMP",
                                                  "Config", "Console", "Drivers", "Graphics", "HCI", "NavigationNotifier",
                                                  "Platform", "ScreenValues", "ScriptedPeers", "ScriptedPairing", "GhostDrop"]),
        .testTarget(name: "HeadUnitCoreTests", dependencies: ["HeadUnitCore", "BluetoothCore", "HCI", "ATT", "SMP", "NavigationNotifier", "ANCS",
                                                         "AMS", "Notifications", "ScreenValues", "Screens", "Graphics", "Input", "ScriptedPeers", "ScriptedPairing",
                                                         "NotifBridge", "HPKE", "JSON", "GATT", "L2CAP", "GhostDrop", "GhostDropFixture", "Console", "Update"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "GhostDropTests", dependencies: ["GhostDrop", "BluetoothCore", "JSON", "GhostDropFixture"], exclude: ["Fixtures"]),
        .testTarget(name: "UpdateTests", dependencies: ["Update", "CCrypto"]),
        .testTarget(name: "NotifBridgeTests", dependencies: ["NotifBridge", "JSON", "GATT", "ATT", "BluetoothCore", "HPKE"]),
        .testTarget(name: "IntegrationTests", dependencies: ["BluetoothCore", "ANCS", "App", "SMP", "Platform", "Display", "CLinux"]),
        .testTarget(name: "GraphicsTests", dependencies: ["Graphics", "DisplaySettings"]),
        .testTarget(name: "ScreensTests", dependencies: ["Screens", "ScreenValues", "Graphics", "DisplaySettings", "Display", "Guidance"],
                    exclude: ["Golden"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "Graphics", "DisplaySettings", "BluetoothCore"]),
        .testTarget(name: "InputTests", dependencies: ["Input"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "ANCS", "AMS", "BluetoothCore"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "App", "Input", "Notifications", "ANCS", "HCI", "Graphics", "DisplaySettings",
                                               "ScreenValues", "BluetoothCore"]),
    ],
    swiftLanguageModes: [.v5]
)

// Release builds of the product without dynamic exclusivity checks: the
// compiler still proves exclusive access statically, and the firmware that
// ships (Embedded Swift) has no run-time checks either. On the host they were
// a sixth of the head unit's instructions per notification (BENCHMARKS.md).
//
// Each function in a section of its own, so that the linker can place the
// functions a drive runs together (headunit.order) and drop the unused ones.
// libcrypto is not autolinked in release builds: `staticCrypto` links it.
//
// No LLVM function merging on the host: where two functions with the same
// body must keep their own addresses (protocol witnesses), the pass moves
// the body into a new function without a symbol, which no order file can
// name, so the ones the drive runs stayed scattered over the text, each
// pulling in 64 KiB (BENCHMARKS.md, Memory). The firmware keeps the pass
// (its size budget; its link folds identical code anyway).
// A changed code generation flag alone does not rebuild an object whose IR
// is unchanged: delete .build/*/release/*.build/*.o after changing one.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-enforce-exclusivity=unchecked",
                      "-Xfrontend", "-function-sections",
                      "-Xfrontend", "-disable-autolink-library", "-Xfrontend", "crypto"], .when(configuration: .release)),
        .unsafeFlags(["-Xfrontend", "-disable-llvm-merge-functions-pass"], .when(platforms: [.linux], configuration: .release)),
    ]
}
