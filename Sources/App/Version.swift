public enum Version {
    public static let string = "0.1.0"
}
