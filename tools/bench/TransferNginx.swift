import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx serving `root` on 127.0.0.1, from a config generated in the work directory: its own pid, error
/// log, access log and temp paths, `daemon off`, `sendfile on`. Nothing global is read or written.
final class TransferNginx {
    let port: Int
    let pid: pid_t
    private var running = true

    /// Writes the config, starts nginx in the foreground and waits until it accepts connections.
    /// - Throws: when nginx is missing, exits, or does not listen within 10 s.
    init(root: String, work: String) throws {
        port = try Self.freePort()
        let conf = work + "/nginx.conf"
        let errorLog = work + "/nginx-error.log"
        try FileManager.default.createDirectory(
            atPath: work + "/nginx-temp", withIntermediateDirectories: true)
        try Self.config(root: root, work: work, port: port)
            .write(toFile: conf, atomically: true, encoding: .utf8)
        let binary =
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
        pid = try TransferProcess.spawn(
            [binary, "-p", work + "/", "-c", conf, "-e", errorLog, "-g", "daemon off;"],
            log: work + "/nginx-console.log")
        let deadline = TransferProcess.now() + 10
        while !Self.accepts(port: port) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                running = false
                let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                throw TransferBenchError(
                    "nginx exited: \(log.split(separator: "\n").suffix(2).joined(separator: " / "))")
            }
            guard TransferProcess.now() < deadline else {
                stop()
                throw TransferBenchError("nginx does not listen on 127.0.0.1:\(port)")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>/<path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Stops nginx (SIGTERM: fast shutdown) and reaps it. Idempotent.
    func stop() {
        guard running else { return }
        running = false
        kill(pid, SIGTERM)
        _ = TransferProcess.reap(pid)
    }

    private static func config(root: String, work: String, port: Int) -> String {
        // As root, the master would hand requests to "nobody", who may not reach the work directory.
        let user = geteuid() == 0 ? "user root root;\n" : ""
        return """
            \(user)worker_processes 1;
            pid \(work)/nginx.pid;
            error_log \(work)/nginx-error.log warn;
            events { worker_connections 1024; }
            http {
                access_log \(work)/nginx-access.log;
                client_body_temp_path \(work)/nginx-temp/body;
                proxy_temp_path \(work)/nginx-temp/proxy;
                fastcgi_temp_path \(work)/nginx-temp/fastcgi;
                uwsgi_temp_path \(work)/nginx-temp/uwsgi;
                scgi_temp_path \(work)/nginx-temp/scgi;
                default_type application/octet-stream;
                sendfile on;
                tcp_nopush on;
                keepalive_requests 100000;
                keepalive_timeout 65;
                server {
                    listen 127.0.0.1:\(port);
                    server_name localhost;
                    root \(root);
                }
            }

            """
    }

    /// A port the kernel just handed out on 127.0.0.1 (free at the time of asking).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TransferBenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TransferBenchError("bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
