import BluetoothCore

/// A bonded phone as the controller's lists know it.
public struct BondedIdentity: Equatable {
    /// The identity address SMP distributed (public or static random).
    public var address: BluetoothAddress
    /// Its IRK, least significant octet first; nil for a peer that never
    /// uses resolvable private addresses. iPhones always do.
    public var irk: [UInt8]?

    public init(address: BluetoothAddress, irk: [UInt8]?) {
        self.address = address
        self.irk = irk
    }
}

/// Who may connect to the advertising head unit.
public enum AdvertisingAudience: Equatable {
    /// Pairing mode: any phone.
    case anyone
    /// Only the bonded phones. `localIRK` is our own IRK, which the
    /// resolving list wants beside each peer's (least significant octet first).
    case bonded([BondedIdentity], localIRK: [UInt8])
}

/// Who turns away a phone that is not in the audience.
public enum AudienceFiltering: Equatable {
    /// Nobody: the audience is anyone.
    case none
    /// The controller: its filter accept list (behind its resolving list
    /// for peers with an IRK) ignores everybody else's connection requests.
    case controller
    /// The owner: the controller cannot resolve a bonded phone's private
    /// addresses (no LL Privacy, or no list commands), so an accept list
    /// would lock the phone out. Advertising stays open and the owner must
    /// disconnect an unknown identity as soon as the link comes up.
    case host
}

extension ControllerInfo {
    /// LE Clear / Add Device To Filter Accept List.
    public var supportsFilterAcceptList: Bool { supports(.leClearFilterAcceptList) && supports(.leAddDeviceToFilterAcceptList) }

    /// LL Privacy with LE Add Device To / Clear Resolving List and LE Set
    /// Address Resolution Enable.
    public var supportsAddressResolution: Bool {
        supportsLLPrivacy && supports(.leAddDeviceToResolvingList) && supports(.leClearResolvingList)
            && supports(.leSetAddressResolutionEnable)
    }

    /// How `audience` can be enforced on this controller.
    public func filtering(for audience: AdvertisingAudience) -> AudienceFiltering {
        guard case .bonded = audience else { return .none }
        return hostFilteringReason(for: audience) == nil ? .controller : .host
    }

    /// Why the controller cannot enforce `audience` (for the log), or nil
    /// when it can. Bonds beyond a list's size are not pruned from
    /// storage: the lists are left out, and the owner filters.
    func hostFilteringReason(for audience: AdvertisingAudience) -> String? {
        guard case .bonded(let peers, _) = audience else { return nil }
        guard supportsFilterAcceptList else { return "the controller has no filter accept list" }
        if let size = filterAcceptListSize, peers.count > size {
            return "\(peers.count) bonded phones, the controller's filter accept list holds \(size)"
        }
        let resolvable = peers.filter { $0.irk != nil }.count
        guard resolvable > 0 else { return nil }
        guard supportsAddressResolution else { return "the controller cannot resolve private addresses (no LL Privacy)" }
        if let size = resolvingListSize, resolvable > size {
            return "\(resolvable) bonded phones with private addresses, the controller's resolving list holds \(size)"
        }
        return nil
    }

    /// The commands that program the lists for `audience` (with advertising
    /// disabled). Address resolution is off while the resolving list
    /// changes (7.8.38 forbids changing it while resolution is on and the
    /// controller advertises, scans or initiates).
    func listProgram(for audience: AdvertisingAudience) -> [HCICommand] {
        guard case .bonded(let peers, let localIRK) = audience else { return [] }
        let resolving = supportsAddressResolution && peers.contains { $0.irk != nil }
        var program: [HCICommand] = []
        if resolving { program += [.leSetAddressResolutionEnable(false), .leClearResolvingList()] }
        program.append(.leClearFilterAcceptList())
        for peer in peers { program.append(.leAddDeviceToFilterAcceptList(peer.address)) }
        if resolving {
            for peer in peers {
                if let irk = peer.irk { program.append(.leAddDeviceToResolvingList(peer.address, peerIRK: irk, localIRK: localIRK)) }
            }
            program.append(.leSetAddressResolutionEnable(true))
        }
        return program
    }
}
