import HeadUnit

print("headunit \(Version.string)")
