import Foundation

/// Smoothed transfer speed: an exponential moving average with a one-second time constant.
struct SpeedMeter {
    private(set) var speed: Double = 0
    private var lastBytes: Int64?
    private var lastTime: Double = 0
    private let timeConstant: Double

    init(timeConstant: Double = 1) {
        self.timeConstant = timeConstant
    }

    /// Folds in the byte count observed at `time` (seconds, monotonic).
    mutating func record(bytes: Int64, at time: Double) {
        defer {
            lastBytes = bytes
            lastTime = time
        }
        guard let lastBytes else { return }
        let elapsed = time - lastTime
        guard elapsed > 0 else { return }
        let instant = Double(max(bytes - lastBytes, 0)) / elapsed
        let weight = 1 - exp(-elapsed / timeConstant)
        speed += weight * (instant - speed)
    }

    /// Seconds to fetch `remaining` bytes at the smoothed speed.
    func eta(remaining: Int64) -> Double? {
        guard speed > 1 else { return nil }
        return Double(max(remaining, 0)) / speed
    }
}
