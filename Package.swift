// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DownloadLedger",
    products: [
        .library(name: "DownloadLedger", targets: ["DownloadLedger"]),
        .library(name: "LoopbackHTTP", targets: ["LoopbackHTTP"]),
        .executable(name: "dledger", targets: ["dledger"]),
        .executable(name: "ledger-bench", targets: ["ledger-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CWebSockets", pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .target(name: "CSHA256"),
        .target(name: "CBufferCache"),
        .target(name: "CSpawn"),
        .target(name: "CWriteback"),
        // Closes WebSocket connections on an unmasked client frame, which libwebsockets 4.1 lets through (docs/rpc.md).
        .target(name: "CWebSocketGuard"),
        .target(name: "LedgerCore"),
        .target(
            name: "LedgerStore",
            dependencies: ["LedgerCore", "CSQLite", "CCrypto", "CPostgres", "CSHA256", "CWriteback"]),
        .target(
            name: "LedgerTransfer",
            dependencies: ["CCurl", "CCrypto", "CSHA256", "CBufferCache", "CWriteback"]),
        .target(
            name: "DownloadLedger",
            dependencies: ["LedgerCore", "LedgerStore", "LedgerTransfer", "CCrypto", "CSpawn", "CWriteback"]),
        .target(name: "LoopbackHTTP"),
        .target(name: "LedgerUI", dependencies: ["LedgerCore", "LedgerTransfer"]),
        .target(name: "LedgerRPC", dependencies: ["DownloadLedger", "LedgerFrontEnd"]),
        .target(
            name: "LedgerRPCServer",
            dependencies: ["LedgerRPC", "CWebSockets", "CWebSocketGuard", "CWriteback"]),
        .target(name: "LedgerFrontEnd", dependencies: ["DownloadLedger", "LedgerCore"]),
        .executableTarget(
            name: "dledger",
            dependencies: [
                "DownloadLedger", "LedgerUI", "LoopbackHTTP", "LedgerRPC", "LedgerRPCServer",
                "LedgerFrontEnd",
            ],
            path: "tools/dledger"),
        .executableTarget(
            name: "ledger-bench",
            dependencies: [
                "DownloadLedger", "LedgerUI", "LoopbackHTTP", "LedgerStore", "CSQLite", "CPostgres",
                "CSHA256",
            ],
            path: "tools/bench", exclude: ["transfer-bench.sh"]),
        // Seeded randomness and the mutator of the decoder fuzz tests (docs/decoders.md), shared by test targets.
        .target(name: "FuzzSupport", path: "Tests/FuzzSupport"),
        // What the test targets share: the temporary folder and the raw HTTP (and WebSocket) client.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The throwaway PostgreSQL cluster of the tests (tools/pg-cluster), shared by test targets.
        .target(name: "PostgresSupport", path: "Tests/PostgresSupport"),
        .testTarget(name: "LedgerCoreTests", dependencies: ["LedgerCore", "FuzzSupport"]),
        // ledger-bench: its `postgres-writer` is the writer process of the concurrent-writers test.
        .testTarget(
            name: "LedgerStoreTests",
            dependencies: [
                "LedgerStore", "LedgerCore", "CSQLite", "ledger-bench", "PostgresSupport", "TestSupport",
            ]),
        .testTarget(
            name: "LedgerTransferTests",
            dependencies: ["LedgerTransfer", "LoopbackHTTP", "CBufferCache", "CSHA256"]),
        .testTarget(
            name: "DownloadLedgerTests",
            dependencies: ["DownloadLedger", "LoopbackHTTP", "TestSupport", "PostgresSupport"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP", "TestSupport"]),
        .testTarget(name: "LedgerFrontEndTests", dependencies: ["LedgerFrontEnd", "FuzzSupport"]),
        .testTarget(
            name: "LedgerRPCTests",
            dependencies: [
                "LedgerRPC", "LedgerRPCServer", "DownloadLedger", "LoopbackHTTP", "CWebSocketGuard",
                "TestSupport",
            ]),
        .testTarget(
            name: "LedgerUITests", dependencies: ["LedgerUI", "LedgerCore", "LedgerTransfer", "FuzzSupport"]),
        .testTarget(
            name: "DledgerTests",
            dependencies: [
                "LoopbackHTTP", "dledger", "FuzzSupport", "TestSupport", "LedgerFrontEnd", "PostgresSupport",
            ],
            exclude: ["Fixtures"]),
    ]
)
