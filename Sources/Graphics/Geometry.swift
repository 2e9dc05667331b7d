/// A pixel position on a canvas (integer device pixels, y grows downwards).
public struct Point: Equatable, Hashable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// A canvas or screen size in pixels.
public struct Size: Equatable, Hashable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var isPortrait: Bool { height > width }
}

/// A position with sub-pixel precision, for vector shapes.
public struct PointF: Equatable {
    public var x: Float
    public var y: Float
    public init(_ x: Float, _ y: Float) { self.x = x; self.y = y }
}

/// An axis-aligned pixel rectangle. Empty when width or height is not positive.
public struct Rect: Equatable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public init(size: Size) { self.init(x: 0, y: 0, width: size.width, height: size.height) }

    public static let empty = Rect(x: 0, y: 0, width: 0, height: 0)

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : width * height }
    public var midX: Int { x + width / 2 }
    public var midY: Int { y + height / 2 }

    public func contains(_ p: Point) -> Bool {
        p.x >= x && p.x < maxX && p.y >= y && p.y < maxY
    }

    public func contains(_ r: Rect) -> Bool {
        r.isEmpty || (r.x >= x && r.y >= y && r.maxX <= maxX && r.maxY <= maxY)
    }

    public func intersection(_ o: Rect) -> Rect {
        let nx = max(x, o.x), ny = max(y, o.y)
        let nmx = min(maxX, o.maxX), nmy = min(maxY, o.maxY)
        if nmx <= nx || nmy <= ny { return .empty }
        return Rect(x: nx, y: ny, width: nmx - nx, height: nmy - ny)
    }

    public func intersects(_ o: Rect) -> Bool { !intersection(o).isEmpty }

    /// The smallest rectangle holding both (an empty one adds nothing).
    public func union(_ o: Rect) -> Rect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let nx = min(x, o.x), ny = min(y, o.y)
        return Rect(x: nx, y: ny, width: max(maxX, o.maxX) - nx, height: max(maxY, o.maxY) - ny)
    }

    public func insetBy(dx: Int, dy: Int) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    public func offsetBy(dx: Int, dy: Int) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width, height: height)
    }

    public var description: String { "(\(x),\(y) \(width)x\(height))" }
}
