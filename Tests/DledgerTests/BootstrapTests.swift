import Foundation
import Testing

/// tools/bootstrap, which the README's two commands start with: silent when nothing is missing, and otherwise
/// apt-get (through sudo only when not root) for exactly the missing packages.
///
/// apt-get and sudo are replaced, on PATH, by scripts that write down how they were called: a test must not
/// install packages on the machine. pkg-config is the real one; `PKG_CONFIG_LIBDIR` pointing at an empty
/// folder makes it find no library, as on a machine without the -dev packages.
@Suite struct BootstrapTests {
    static let script = ScriptRun.root + "/tools/bootstrap"

    /// A folder (open to every user) with spies for apt-get and sudo and an empty pkg-config folder.
    final class Spies: @unchecked Sendable {
        let root = NSTemporaryDirectory() + "dledger-bootstrap-" + UUID().uuidString
        var bin: String { root + "/bin" }
        var log: String { root + "/calls.log" }
        var noLibraries: String { root + "/pkgconfig" }

        init(sudo: Bool = true) throws {
            for dir in [root, bin, noLibraries] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                chmod(dir, 0o777)
            }
            try ScriptRun.writeScript(bin + "/apt-get", "echo \"apt-get $*\" >> '\(log)'")
            if sudo {
                try ScriptRun.writeScript(bin + "/sudo", "echo \"sudo $*\" >> '\(log)'\nexec \"$@\"")
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// Every call the spies saw, one per line.
        var calls: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
                String.init)
        }

        /// A PATH holding only the spies and the few programs the script needs (so no real sudo is found).
        func isolatedPath() throws -> String {
            for name in ["env", "bash", "pkg-config"] {
                guard let real = ScriptRun.which(name) else { throw CocoaError(.fileNoSuchFile) }
                try FileManager.default.createSymbolicLink(
                    atPath: bin + "/" + name, withDestinationPath: real)
            }
            return bin
        }
    }

    /// The libraries of the script's own table (its `lib ... build` lines), in order: what a machine without
    /// any -dev package lacks.
    static let libraries: [(module: String, package: String)] = {
        let text = (try? String(contentsOfFile: script, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 4, words[0] == "lib", words[3] == "build" else { return nil }
            return (String(words[1]), String(words[2]))
        }
    }()
    static let buildPackages = libraries.map(\.package).joined(separator: " ")
    static let missingModules = libraries.map(\.module).joined(separator: " ")

    @Test func asRootWithNothingMissingItDoesNothing() async throws {
        let spies = try Spies()
        let path = spies.bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for args in [[], ["--tests"]] {
            let r = try await ScriptRun.run(Self.script, args, env: ["PATH": path, "HOME": spies.root])
            #expect(r.status == 0, "bootstrap \(args): \(r.err)")
            #expect(r.out.isEmpty && r.err.isEmpty, "bootstrap \(args) printed: \(r.out)\(r.err)")
        }
        #expect(spies.calls.isEmpty, "nothing was missing, yet: \(spies.calls)")
    }

    @Test func asRootMissingLibrariesAreInstalledWithAptGetAlone() async throws {
        let spies = try Spies()
        let path = spies.bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let r = try await ScriptRun.run(
            Self.script, [], env: ["PATH": path, "PKG_CONFIG_LIBDIR": spies.noLibraries])
        #expect(r.status == 0, "\(r.err)")
        #expect(
            spies.calls == [
                "apt-get update -qq",
                "apt-get install -y -qq --no-install-recommends \(Self.buildPackages)",
            ])
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(Self.libraries.count >= 3, "the table names sqlite3, libcurl and libcrypto at least")
        #expect(r.err.contains("missing \(Self.missingModules):"), "\(r.err)")
    }

    @Test func asAUserMissingLibrariesAreInstalledThroughSudo() async throws {
        let spies = try Spies()
        let r = try await ScriptRun.run(
            Self.script, [], env: ["PATH": try spies.isolatedPath(), "PKG_CONFIG_LIBDIR": spies.noLibraries],
            user: "nobody")
        #expect(r.status == 0, "\(r.err)")
        let env = "env DEBIAN_FRONTEND=noninteractive"
        #expect(
            spies.calls == [
                "sudo \(env) apt-get update -qq", "apt-get update -qq",
                "sudo \(env) apt-get install -y -qq --no-install-recommends \(Self.buildPackages)",
                "apt-get install -y -qq --no-install-recommends \(Self.buildPackages)",
            ])
    }

    @Test func asAUserWithoutSudoItSaysWhatToRunAsRootInOneLine() async throws {
        let spies = try Spies(sudo: false)
        let r = try await ScriptRun.run(
            Self.script, [], env: ["PATH": try spies.isolatedPath(), "PKG_CONFIG_LIBDIR": spies.noLibraries],
            user: "nobody")
        #expect(r.status == 1)
        #expect(spies.calls.isEmpty)
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(
            r.err.contains("as root: apt-get update && apt-get install -y \(Self.buildPackages)"), "\(r.err)")
    }

    @Test func checkNamesWhatIsMissingAndInstallsNothing() async throws {
        let spies = try Spies()
        let path = spies.bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let r = try await ScriptRun.run(
            Self.script, ["--check"], env: ["PATH": path, "PKG_CONFIG_LIBDIR": spies.noLibraries])
        #expect(r.status == 1)
        #expect(
            r.err
                == "missing \(Self.missingModules): install the Debian package(s) \(Self.buildPackages)\n")
        #expect(spies.calls.isEmpty)
        let bad = try await ScriptRun.run(Self.script, ["--test"], env: ["PATH": path])
        #expect(bad.status == 64)
        #expect(bad.err.contains("unknown option '--test'"))
    }

    /// Every `.systemLibrary` of Package.swift: its pkg-config name and its Debian package.
    static func systemLibraries() throws -> [(target: String, module: String, package: String)] {
        let manifest = try String(contentsOfFile: ScriptRun.root + "/Package.swift", encoding: .utf8)
        let pattern = try Regex(
            #"\.systemLibrary\(\s*name: "(\w+)", pkgConfig: "([\w.+-]+)",\s*providers: \[\.apt\(\["([\w.+-]+)"\]\)\]"#
        )
        return manifest.matches(of: pattern).map { match in
            (
                String(match.output[1].substring ?? ""), String(match.output[2].substring ?? ""),
                String(match.output[3].substring ?? "")
            )
        }
    }

    /// A library added to Package.swift is installed by the README's commands, and without bootstrap its
    /// missing header stops the build with a line naming its Debian package.
    @Test func everySystemLibraryIsInTheTableAndAMissingHeaderNamesItsPackage() async throws {
        let libraries = try Self.systemLibraries()
        #expect(libraries.count >= 4, "CSQLite, CCurl, CCrypto, CWebSockets at least")
        let clang = try #require(ScriptRun.which("clang"), "clang (part of the Swift toolchain) not on PATH")
        let source = NSTemporaryDirectory() + "dledger-shim-\(UUID().uuidString).c"
        try "#include \"shim.h\"\n".write(toFile: source, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: source) }
        for library in libraries {
            #expect(
                Self.libraries.contains { $0 == (library.module, library.package) },
                "tools/bootstrap's table lacks 'lib \(library.module) \(library.package) build'")
            let r = try await ScriptRun.run(
                clang,
                [
                    "-fsyntax-only", "-nostdinc", "--sysroot=/nonexistent", "-I", "Sources/\(library.target)",
                    source,
                ])
            #expect(r.status != 0)
            #expect(
                r.err.contains("not found: install the Debian package \(library.package)"),
                "\(library.target): \(r.err)")
        }
    }
}
