import Foundation

/// Ctrl-C, SIGTERM and SIGHUP while downloading: the first asks for a clean stop; later ones only say that the stop
/// is under way. The process never exits before every transfer's stop is recorded (`transferPaused`) and the run
/// lock is released, so exit 130 always means a clean stop — also under coreutils `timeout`, which signals the
/// process and then its whole group, and after a closed terminal (SIGHUP).
final class Interrupt: @unchecked Sendable {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    private let lock = NSLock()
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    var fired: Bool { lock.withLock { count > 0 } }

    func install(_ onFirst: @escaping @Sendable () -> Void) {
        for sig in Self.signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in
                let n = lock.withLock {
                    count += 1
                    return count
                }
                if n == 1 {
                    onFirst()
                } else if n == 2 {
                    let line =
                        "stopping: recording where each download stopped (kill -9 loses nothing either)\n"
                    FileHandle.standardError.write(Data(line.utf8))
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    func remove() {
        for s in sources { s.cancel() }
        sources = []
        // Still ignored: a late signal (the second of `timeout`) must not kill the process while it ends.
        for sig in Self.signals { signal(sig, SIG_IGN) }
    }
}
