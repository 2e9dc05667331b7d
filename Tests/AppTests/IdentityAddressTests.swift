import BluetoothCore
import Foundation
import HCI
import Platform
import SMP
import Testing
@testable import App

/// The head unit's identity address under `--state`: made once, then the
/// same on every start, so an iPhone bonded in Settings finds it again.
@Suite struct IdentityAddressTests {
    @Test func madeOnceThenReadBack() throws {
        let directory = NSTemporaryDirectory() + "identity-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = StateFiles(directory: directory)
        try files.prepare()
        let first = try #require(BondStore(files: files).identityAddress())
        #expect(first.address.kind == .random)
        #expect(first.address.value >> 46 == 0b11, "a static random address has its two top bits set")
        #expect(files.read(BondStore.identityAddressFile) == Array((first.address.text + "\n").utf8))
        // A restart reads the same address instead of drawing another.
        #expect(BondStore(files: files).identityAddress() == first)
    }

    @Test func aDamagedFileIsReplaced() throws {
        let directory = NSTemporaryDirectory() + "identity-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = StateFiles(directory: directory)
        try files.prepare()
        // Top bits 00: not a static random address.
        try files.write(BondStore.identityAddressFile, Array("01:02:03:04:05:06\n".utf8))
        let address = try #require(BondStore(files: files).identityAddress())
        #expect(address.address.value >> 46 == 0b11)
        #expect(files.read(BondStore.identityAddressFile) == Array((address.address.text + "\n").utf8))
    }

    /// The address and our IRK are drawn from the store's random source:
    /// given fixed bytes, they are those bytes.
    @Test func madeFromTheRandomSourceItIsGiven() throws {
        let directory = NSTemporaryDirectory() + "identity-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = StateFiles(directory: directory)
        try files.prepare()
        let store = BondStore(files: files, random: RandomSource { [UInt8](repeating: 0x42, count: $0) })
        #expect(store.identityAddress() == StaticRandomAddress(randomBytes: [0x42, 0x42, 0x42, 0x42, 0x42, 0x42]))
        #expect(store.localIRK()?.bytes == [UInt8](repeating: 0x42, count: 16))
    }
}
