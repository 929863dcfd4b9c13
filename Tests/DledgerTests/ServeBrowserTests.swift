import Foundation
import LoopbackHTTP
import Testing

/// Issue 26 in a real browser: headless Chromium loads a page of another site (`evil.test`, resolved to
/// 127.0.0.1, served by LoopbackHTTP on another port) that tries JSONP, an image, fetch, a form POST, a WebSocket,
/// DNS rebinding and shutdown against `dledger serve` (`Fixtures/Browser/attack.html`).
@Suite(.serialized) struct ServeBrowserTests {
    static let chromium: String? = [
        "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
    ]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

    static let page: String = {
        let path =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/Browser/attack.html"
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    /// Serves the page filled in for a server on `port` (or, `fromFile`, writes it to a `file://` page, whose
    /// requests carry `Origin: null`), loads it in Chromium and returns what the page logged.
    func attack(
        _ box: DledgerSandbox, files: LoopbackServer, servePort: Int, dir: String, secret: String,
        fromFile: Bool = false
    ) async throws -> String {
        var html = Self.page
        for (key, value) in [
            ("@SERVE_PORT@", String(servePort)), ("@FILE_URL@", files.url("/evil.sh")), ("@DIR@", dir),
            ("@SECRET@", secret), ("@HOLD_URL@", files.url("/hold")),
        ] {
            html = html.replacingOccurrences(of: key, with: value)
        }
        files.serve(
            "/attack.html", Resource(bytes: Array(html.utf8), contentType: "text/html; charset=utf-8"))
        // What the page fetches to hold Chromium's virtual clock: 100 bytes at 1,000 a second.
        files.serve("/hold", Resource(size: 100, seed: 1, faults: Faults(throttleBytesPerSecond: 1000)))
        var pageURL = files.url("/attack.html").replacingOccurrences(of: "127.0.0.1", with: "evil.test")
        if fromFile {
            pageURL = "file://" + box.root + "/attack.html"
            try html.write(toFile: box.root + "/attack.html", atomically: true, encoding: .utf8)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.chromium!)
        p.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(box.root)/chromium",
            "--host-resolver-rules=MAP evil.test 127.0.0.1", "--virtual-time-budget=15000", "--dump-dom",
            pageURL,
        ]
        // Its profile, and the downloads it makes of answers it cannot show, stay in the sandbox.
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = box.root + "/home"
        environment["XDG_CONFIG_HOME"] = box.root + "/home/.config"
        environment["XDG_DOWNLOAD_DIR"] = box.root + "/home/Downloads"
        p.environment = environment
        let browser = try Running(p, stdin: nil)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(90))
            browser.process.terminate()
        }
        let finished = await browser.wait()
        watchdog.cancel()
        guard let start = finished.out.range(of: "<pre id=\"log\">"),
            let end = finished.out.range(of: "</pre>", range: start.upperBound..<finished.out.endIndex)
        else { throw CLIFailure("chromium showed no log: \(finished.out) \(finished.err.suffix(2000))") }
        return String(finished.out[start.upperBound..<end.lowerBound])
    }

    /// The URLs of the tasks in the list.
    func urls(_ box: DledgerSandbox) async throws -> [String] {
        let list = try await box.run("ls", "--json").json as? [String: Any]
        let sections = list?["sections"] as? [[String: Any]] ?? []
        return sections.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }.compactMap { $0["url"] as? String }
    }

    /// The default (a secret serve made), and aria2c's open server (`--rpc-secret ''`): the page gets nowhere;
    /// nor does a `file://` page (a downloaded HTML file opened), whose origin is `null`.
    @Test(
        .enabled(if: chromium != nil, "needs chromium (tools/bootstrap --tests installs it)"),
        arguments: [(nil, false), ("", false), ("", true)] as [(String?, Bool)])
    func anotherSitesPageWritesNothingAndStopsNothing(secret: String?, fromFile: Bool) async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve("/evil.sh", Resource(text: "#!/bin/sh\necho owned\n"))
        let outside = box.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let (server, port) = try await ServeCommandTests.serve(box, secret: secret)
        let log = try await attack(
            box, files: files, servePort: port, dir: outside, secret: "", fromFile: fromFile)
        #expect(log.split(separator: "\n").contains("done"), "the page ran to its end: \(log)")
        #expect(!log.contains("jsonp:answered"), "\(log)")
        #expect(!log.contains("ws:message") && !log.contains("ws:open"), "\(log)")
        #expect(log.contains("cors:error"), "\(log)")
        // Nothing was added or fetched, no file written, and the server still runs and answers.
        #expect(try await urls(box).isEmpty)
        #expect(files.requests("/evil.sh").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: box.downloads).allSatisfy {
                $0.hasPrefix(".")
            })
        #expect(server.process.isRunning)
        var params = "[]"
        if secret == nil {
            let made = try await box.run("-q", "serve", "--print-secret").out.trimmingCharacters(
                in: .newlines)
            params = #"["token:\#(made)"]"#
        }
        let stat = try ServeCommandTests.call(
            port, #"{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":\#(params)}"#)
        #expect(stat["result"] != nil, "\(stat)")
        server.interrupt()
        _ = await server.wait()
    }

    /// The same page, once the user allowed its origin and it knows the secret, adds with every means but one:
    /// the request that names the server evil.test (DNS rebinding) is refused still.
    @Test(.enabled(if: chromium != nil, "needs chromium (tools/bootstrap --tests installs it)"))
    func aPageTheUserAllowedCallsWithTheSecret() async throws {
        let box = try DledgerSandbox()
        let files = try LoopbackServer()
        files.serve("/evil.sh", Resource(text: "#!/bin/sh\necho fine\n"))
        let origin = files.url("/").replacingOccurrences(of: "127.0.0.1", with: "evil.test")
        let (server, port) = try await ServeCommandTests.serve(
            box, secret: "s3cret", ["--rpc-allow-origin", origin])
        let log = try await attack(
            box, files: files, servePort: port, dir: box.downloads + "/from-page", secret: "s3cret")
        #expect(log.split(separator: "\n").contains("done"), "\(log)")
        #expect(log.contains("jsonp:answered {\"id\":\"1\""), "\(log)")
        #expect(log.contains("cors:200 {\"id\":5,\"jsonrpc\":\"2.0\",\"result\":"), "\(log)")
        #expect(log.contains("ws:message {\"id\":9,\"jsonrpc\":\"2.0\",\"result\":"), "\(log)")
        let added = Set(try await urls(box).compactMap { $0.split(separator: "?").last.map(String.init) })
        #expect(added == ["1", "3", "4", "5", "8", "9"], "\(log)")
        server.interrupt()
        _ = await server.wait()
    }
}
