import Foundation
import LedgerRPCServer

/// Who may call `dledger serve`, from its options: the secret (given, turned off, or the stored one), the web
/// origins allowed, and the folders besides the download folder that a `dir` given over RPC may be in.
struct ServePolicy {
    enum SecretSource {
        /// `--rpc-secret S` or `$DLEDGER_RPC_SECRET`.
        case given(String)
        /// `--rpc-secret ''`: aria2c's open server, asked for.
        case none
        /// The random one kept in the config folder (``RPCSecretStore``).
        case stored(RPCSecretStore)
    }

    let source: SecretSource
    /// `--rpc-allow-origin`, as given (each an http or https URL).
    let origins: [String]
    /// `--allow-dir`, absolute.
    let allowedDirectories: [String]

    /// Reads and checks the options; opens nothing.
    /// - Throws: `CLIError.usage` for an origin that is not an http(s) URL or a folder that is not one.
    init(_ inv: Invocation) throws {
        origins = inv.args.all("--rpc-allow-origin")
        for origin in origins where RPCAdmission.origin(of: origin) == nil {
            throw CLIError.usage(
                "--rpc-allow-origin \(origin): not an http or https URL (https://ariang.example)")
        }
        allowedDirectories = inv.args.all("--allow-dir").map { Context.absolute($0, cwd: inv.context.cwd) }
        for dir in allowedDirectories {
            var info = stat()
            guard stat(dir, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw CLIError.usage("--allow-dir \(dir): not a folder")
            }
        }
        if let given = inv.args.value("--rpc-secret") {
            source = given.isEmpty ? .none : .given(given)
        } else if let given = inv.context.environment["DLEDGER_RPC_SECRET"], !given.isEmpty {
            source = .given(given)
        } else {
            do {
                source = .stored(try RPCSecretStore(environment: inv.context.environment))
            } catch {
                throw CLIError.failed(error.description)
            }
        }
    }

    /// Whether calls need no token (`--rpc-secret ''`).
    var isOpen: Bool {
        if case .none = source { return true }
        return false
    }

    /// The secret calls must carry; nil when turned off. The stored one is made on first use.
    /// - Throws: `CLIError.failed` when the stored secret cannot be read or made.
    func secret() throws -> String? {
        switch source {
        case .given(let s): return s
        case .none: return nil
        case .stored(let store):
            do {
                return try store.secret()
            } catch {
                throw CLIError.failed(error.description)
            }
        }
    }

    /// The AriaNg address that carries `secret` for a server on `port`, after the first allowed origin's URL as
    /// given (the user's AriaNg, `https://host/AriaNg/`), or `…` standing for the address of theirs.
    func ariaNgLink(secret: String, port: Int) -> String {
        let base = origins.first.map { String($0.prefix { $0 != "#" && $0 != "?" }) } ?? "…"
        return RPCSecretStore.ariaNgLink(base: base, port: port, secret: secret)
    }

    /// What `serve` says about its secret once it serves. The link carries the secret, so it is shown only on a
    /// terminal: a service's output goes to a journal, where the secret must not be.
    func announce(_ inv: Invocation, secret: String?, port: Int) {
        guard let secret else {
            inv.console.err(
                "warning: no secret (--rpc-secret ''): every program on this machine can drive this server")
            return
        }
        if inv.console.isTTY {
            inv.console.info("AriaNg: " + ariaNgLink(secret: secret, port: port))
        } else if case .stored(let store) = source {
            inv.console.info("the RPC secret is in \(store.path) ('dledger serve --print-secret' shows it)")
        }
    }

    /// Names this machine answers to besides loopback ones: its host name (and `NAME.local` for a short one).
    static func hostNames() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !name.isEmpty else { return [] }
        return name.contains(".") ? [name] : [name, name + ".local"]
    }
}
