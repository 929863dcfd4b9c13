import Foundation

/// The results of `statements` through one `psql` session on `uri`, each its own transaction (unaligned, tuples
/// only), trimmed: how the PostgreSQL tests look at a server without our code.
func psql(_ uri: String, _ statements: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["psql", "-X", "-q", "-A", "-t", "-d", uri] + statements.flatMap { ["-c", $0] }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// One statement's result through `psql` on `uri` (unaligned, tuples only), trimmed.
func psql(_ uri: String, _ sql: String) throws -> String {
    try psql(uri, [sql])
}
