import Foundation

/// The results of `statements` through one `psql` session on `uri`, each its own transaction (unaligned, tuples
/// only), trimmed: how the PostgreSQL tests look at a server without our code.
func psql(_ uri: String, _ statements: [String]) throws -> String {
    try runPsql(uri, statements, stopOnError: false).output
}

/// One statement's result through `psql` on `uri` (unaligned, tuples only), trimmed.
func psql(_ uri: String, _ sql: String) throws -> String {
    try psql(uri, [sql])
}

/// ``psql(_:_:)-([String])``, stopping at the first statement that fails, and whether none did.
func psqlChecked(_ uri: String, _ statements: [String]) throws -> (output: String, succeeded: Bool) {
    let (output, status) = try runPsql(uri, statements, stopOnError: true)
    return (output, status == 0)
}

private func runPsql(_ uri: String, _ statements: [String], stopOnError: Bool) throws -> (
    output: String, status: Int32
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
        ["psql", "-X", "-q", "-A", "-t"] + (stopOnError ? ["-v", "ON_ERROR_STOP=1"] : []) + ["-d", uri]
        + statements.flatMap { ["-c", $0] }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return (text, process.terminationStatus)
}
