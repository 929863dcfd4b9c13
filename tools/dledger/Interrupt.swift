import Foundation

/// Ctrl-C and SIGTERM while downloading: the first asks for a clean stop, the second exits at once.
final class Interrupt: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    var fired: Bool { lock.withLock { count > 0 } }

    func install(_ onFirst: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in
                let n = lock.withLock {
                    count += 1
                    return count
                }
                if n == 1 { onFirst() } else { _exit(CLIError.interrupted) }
            }
            source.resume()
            sources.append(source)
        }
    }

    func remove() {
        for s in sources { s.cancel() }
        sources = []
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
