import Testing

/// Which store a `DledgerSandbox`'s ledger lives in: a SQLite file in the sandbox (the default), or a fresh named
/// ledger on the tests' PostgreSQL cluster. The CLI acceptance tests that are about commands rather than the SQLite
/// file run on both (`@Test(arguments: LedgerStoreKind.allCases)`, docs/testing.md).
enum LedgerStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}
