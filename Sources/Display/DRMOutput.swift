import BluetoothCore
import CDRM
import CLinux
import DisplaySettings
import Graphics

/// DRM/KMS output: two dumb buffers, the CRTC set once, then page flips.
/// The flip-complete event arrives on `pollDescriptor`; the caller's poll
/// loop hands it to `handleReadable`. Drawing always goes to the buffer not
/// on screen, so there is no tearing, and nothing ever waits for vblank.
public final class DRMOutput: DisplayOutput {
    struct Buffer {
        var handle: UInt32 = 0
        var framebuffer: UInt32 = 0
        var pitch = 0
        var size = 0
        var map: UnsafeMutableRawPointer?
        /// Logical areas that changed since this buffer was last filled.
        var stale = Damage()
    }

    public let path: String
    public let selection: DRMSelection
    public let physicalSize: Size
    public let rotation: Rotation
    public var pollDescriptor: Int32? { fd >= 0 ? fd : nil }
    /// Completed page flips.
    public private(set) var flips = 0

    private var fd: Int32
    private var mode: drmModeModeInfo
    private var connectorID: UInt32
    private var buffers: [Buffer] = []
    private var front = 0
    private var flipPending = false
    /// A frame that arrived while a flip was pending; shown when it completes.
    private var queued: Canvas?
    private var saved: UnsafeMutablePointer<drmModeCrtc>?

    static let pageFlipEvent: UInt32 = 0x01
    static let flipCompleteEvent: UInt32 = 0x02
    static let modeTypePreferred: UInt32 = 1 << 3

    public init(path: String, rotation: Rotation = .none, preferences: DRMPreferences = DRMPreferences()) throws(DisplayError) {
        let fd = nn_open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK, 0)
        guard fd >= 0 else { throw DisplayError.opening(path, errno: nn_errno()) }
        guard let (resources, rawModes) = DRMOutput.readResources(fd) else {
            _ = CLinux.close(fd)
            throw .notADisplay(path: path, detail: "no KMS resources (a render-only node, or no modesetting driver)")
        }
        let sel: DRMSelection
        do {
            sel = try selectDRMOutput(resources, preferences)
        } catch {
            _ = CLinux.close(fd)
            if error == .noConnectedDisplay { throw .noConnectedDisplay(path: path) }
            throw .selection("\(path): \(error.description)")
        }
        guard let modes = rawModes[sel.connectorID], sel.mode.index < modes.count else {
            _ = CLinux.close(fd)
            throw .selection("\(path): mode list changed while probing")
        }
        self.path = path
        self.fd = fd
        selection = sel
        mode = modes[sel.mode.index]
        connectorID = sel.connectorID
        physicalSize = Size(width: sel.mode.width, height: sel.mode.height)
        self.rotation = rotation
        do throws(DisplayError) {
            try createBuffers()
            saved = drmModeGetCrtc(fd, sel.crtcID)
            var conn = connectorID
            guard drmModeSetCrtc(fd, sel.crtcID, buffers[0].framebuffer, 0, 0, &conn, 1, &mode) == 0 else {
                let e = nn_errno()
                if e == EACCES || e == EPERM {
                    throw DisplayError.notADisplay(path: path, detail: "not allowed to set the mode: another program (a desktop session) is the DRM master")
                }
                throw DisplayError.system(what: "drmModeSetCrtc", errno: e)
            }
        } catch {
            close()
            throw error
        }
        Log.info("display", "\(path): \(sel.connectorName) \(sel.mode.width)x\(sel.mode.height)@\(sel.mode.refresh) on CRTC \(sel.crtcID)")
    }

    deinit { close() }

    /// Reads the card's connectors, encoders and CRTCs; the raw mode lists
    /// are kept per connector for the mode-set call.
    static func readResources(_ fd: Int32) -> (DRMResources, [UInt32: [drmModeModeInfo]])? {
        guard let res = drmModeGetResources(fd) else { return nil }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        var crtcs: [UInt32] = []
        for i in 0..<Int(r.count_crtcs) { if let p = r.crtcs { crtcs.append(p[i]) } }
        var encoders: [DRMEncoderInfo] = []
        for i in 0..<Int(r.count_encoders) {
            guard let ids = r.encoders, let e = drmModeGetEncoder(fd, ids[i]) else { continue }
            encoders.append(DRMEncoderInfo(id: e.pointee.encoder_id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs))
            drmModeFreeEncoder(e)
        }
        var connectors: [DRMConnectorInfo] = []
        var raw: [UInt32: [drmModeModeInfo]] = [:]
        for i in 0..<Int(r.count_connectors) {
            guard let ids = r.connectors, let c = drmModeGetConnector(fd, ids[i]) else { continue }
            let cp = c.pointee
            var modes: [DRMMode] = []
            var rawModes: [drmModeModeInfo] = []
            for m in 0..<Int(cp.count_modes) {
                guard let list = cp.modes else { break }
                let info = list[m]
                rawModes.append(info)
                modes.append(DRMMode(width: Int(info.hdisplay), height: Int(info.vdisplay), refresh: Int(info.vrefresh),
                                     preferred: info.type & modeTypePreferred != 0, index: m))
            }
            var encIDs: [UInt32] = []
            for e in 0..<Int(cp.count_encoders) { if let list = cp.encoders { encIDs.append(list[e]) } }
            let connection: DRMConnection = cp.connection == DRM_MODE_CONNECTED ? .connected
                : (cp.connection == DRM_MODE_DISCONNECTED ? .disconnected : .unknown)
            connectors.append(DRMConnectorInfo(id: cp.connector_id, type: cp.connector_type, typeIndex: cp.connector_type_id,
                                               connection: connection, modes: modes, encoderIDs: encIDs,
                                               currentEncoderID: cp.encoder_id))
            raw[cp.connector_id] = rawModes
            drmModeFreeConnector(c)
        }
        return (DRMResources(crtcIDs: crtcs, connectors: connectors, encoders: encoders), raw)
    }

    private func createBuffers() throws(DisplayError) {
        let w = UInt32(physicalSize.width), h = UInt32(physicalSize.height)
        for _ in 0..<2 {
            var b = Buffer()
            var pitch: UInt32 = 0, size: UInt64 = 0, offset: UInt64 = 0
            guard nn_drm_create_dumb(fd, w, h, 32, &b.handle, &pitch, &size) == 0 else {
                throw .system(what: "DRM create dumb buffer \(w)x\(h)", errno: nn_errno())
            }
            b.pitch = Int(pitch)
            b.size = Int(size)
            buffers.append(b)
            let i = buffers.count - 1
            guard drmModeAddFB(fd, w, h, 24, 32, pitch, b.handle, &buffers[i].framebuffer) == 0 else {
                throw .system(what: "drmModeAddFB", errno: nn_errno())
            }
            guard nn_drm_map_dumb(fd, b.handle, &offset) == 0, let map = nn_mmap_shared(fd, b.size, Int64(bitPattern: offset)) else {
                throw .system(what: "map dumb buffer", errno: nn_errno())
            }
            // Not cleared: the kernel hands out every dumb buffer zeroed
            // (shmem pages, or DMA memory, zeroed since Linux 5.0), and each
            // buffer starts stale in full, so the first frame fills buffer 1
            // whole and the second buffer 0. Clearing both here (8 MB, every
            // page faulted in) took 0.3 s before the first frame on qemu-virt.
            buffers[i].map = map
        }
        buffers[1].stale.add(Rect(size: rotation.logicalSize(physical: physicalSize)))
        buffers[0].stale.add(Rect(size: rotation.logicalSize(physical: physicalSize)))
    }

    public func present(_ canvas: Canvas, damage: Damage) throws(DisplayError) {
        guard fd >= 0 else { return }
        for i in 0..<buffers.count { buffers[i].stale.add(damage) }
        if flipPending {
            queued = canvas
            return
        }
        try flip(canvas)
    }

    /// Brings the back buffer up to date and queues it for the next vblank.
    private func flip(_ canvas: Canvas) throws(DisplayError) {
        let back = 1 - front
        guard let map = buffers[back].map else { return }
        let px = map.assumingMemoryBound(to: UInt32.self)
        for r in buffers[back].stale.rects {
            canvas.present(r, rotation: rotation, to: px, dstStride: buffers[back].pitch / 4, format: XRGB8888.self)
        }
        buffers[back].stale.removeAll()
        if drmModePageFlip(fd, selection.crtcID, buffers[back].framebuffer, DRMOutput.pageFlipEvent, nil) == 0 {
            flipPending = true
            return
        }
        // Some drivers cannot flip: fall back to a (synchronous) mode set.
        let e = nn_errno()
        var conn = connectorID
        guard drmModeSetCrtc(fd, selection.crtcID, buffers[back].framebuffer, 0, 0, &conn, 1, &mode) == 0 else {
            throw .system(what: "page flip (\(errnoText(e))) and mode set", errno: nn_errno())
        }
        front = back
        flips += 1
    }

    public func handleReadable() throws(DisplayError) {
        guard fd >= 0 else { return }
        var buf = [UInt8](repeating: 0, count: 1024)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            let e = nn_errno()
            if e == EAGAIN || e == EINTR { return }
            throw .system(what: "read DRM events", errno: e)
        }
        // struct drm_event { u32 type; u32 length; } followed by the payload.
        var off = 0
        var completed = false
        while off + 8 <= n {
            let type = UInt32(buf[off]) | UInt32(buf[off + 1]) << 8 | UInt32(buf[off + 2]) << 16 | UInt32(buf[off + 3]) << 24
            let length = Int(UInt32(buf[off + 4]) | UInt32(buf[off + 5]) << 8 | UInt32(buf[off + 6]) << 16 | UInt32(buf[off + 7]) << 24)
            if length < 8 { break }
            if type == DRMOutput.flipCompleteEvent { completed = true }
            off += length
        }
        guard completed, flipPending else { return }
        flipPending = false
        front = 1 - front
        flips += 1
        if let c = queued {
            queued = nil
            try flip(c)
        }
    }

    /// Puts back what was on screen before (the console), then frees everything.
    public func close() {
        guard fd >= 0 else { return }
        if let s = saved {
            var conn = connectorID
            if s.pointee.mode_valid != 0 {
                var m = s.pointee.mode
                if drmModeSetCrtc(fd, s.pointee.crtc_id, s.pointee.buffer_id, s.pointee.x, s.pointee.y, &conn, 1, &m) != 0 {
                    Log.warning("display", "could not restore the previous screen: \(errnoText(nn_errno()))")
                }
            } else {
                _ = drmModeSetCrtc(fd, s.pointee.crtc_id, 0, 0, 0, nil, 0, nil)
            }
            drmModeFreeCrtc(s)
            saved = nil
        }
        for b in buffers {
            if let m = b.map { munmap(m, b.size) }
            if b.framebuffer != 0 { _ = drmModeRmFB(fd, b.framebuffer) }
            if b.handle != 0 { _ = nn_drm_destroy_dumb(fd, b.handle) }
        }
        buffers.removeAll()
        queued = nil
        _ = CLinux.close(fd)
        fd = -1
    }
}
