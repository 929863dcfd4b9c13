import Foundation
import Synchronization

/// Ctrl-C, SIGTERM and SIGHUP while downloading: the first asks for a clean stop; later ones only say that the stop
/// is under way. The process never exits before every transfer's stop is recorded (`transferPaused`) and the run
/// lock is released, so exit 130 always means a clean stop — also under coreutils `timeout`, which signals the
/// process and then its whole group, and after a closed terminal (SIGHUP).
///
/// ```swift
/// let interrupt = Interrupt()
/// interrupt.install { scheduler.requestStop() }
/// defer { interrupt.remove() }
/// ```
public final class Interrupt: Sendable {
    /// The signals handled.
    public static let signals = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var count = 0
        var sources: [Source] = []
    }

    /// A signal source: a libdispatch object, whose calls are thread-safe.
    private struct Source: @unchecked Sendable {
        let source: DispatchSourceSignal
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether a signal arrived since ``install(_:)``.
    public var fired: Bool { state.withLock { $0.count > 0 } }

    /// Handles the signals from now on: the first runs `onFirst`, the second says that the stop is under way.
    public func install(_ onFirst: @escaping @Sendable () -> Void) {
        for sig in Self.signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in
                let n = state.withLock { state in
                    state.count += 1
                    return state.count
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
            let handle = Source(source: source)
            state.withLock { $0.sources.append(handle) }
        }
    }

    /// Stops handling the signals; they stay ignored.
    public func remove() {
        let sources = state.withLock { state in
            defer { state.sources = [] }
            return state.sources
        }
        for s in sources { s.source.cancel() }
        // Still ignored: a late signal (the second of `timeout`) must not kill the process while it ends.
        for sig in Self.signals { signal(sig, SIG_IGN) }
    }
}
