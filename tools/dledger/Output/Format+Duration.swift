import LedgerFrontEnd
import LedgerUI

extension Format {
    /// `"45s"`, `"3m05s"`, `"2h10m"` (the screen's wording, ``Units/duration(_:)``).
    static func duration(_ seconds: Double) -> String { Units.duration(seconds) }
}
