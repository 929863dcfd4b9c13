import Glibc

extension Aria2Service {
    /// `dir` (absolute, `.` and `..` resolved) when it is inside a folder downloads may go to: the ledger's
    /// download folder, the server's `--dir`, or one the user allowed (`serve --allow-dir`). Each folder is opened
    /// as the user named it (it may be a link they chose); the path below it is walked one component at a time
    /// without following a link, as the downloader opens its folders. Components that do not exist yet are
    /// fine (the downloader creates the last one).
    /// - Throws: ``RPCError`` code 1 naming the folders allowed, and nothing is changed.
    func confined(_ dir: String) throws -> String {
        let roots = [ledger.latestList.directory] + downloadRoots
        for root in roots {
            switch Self.placement(of: dir, under: root) {
            case .inside: return dir
            case .throughLink(let component):
                throw RPCError.failed(
                    "option dir \(dir): \(component) is a symbolic link or not a folder; refusing to follow it"
                )
            case .outside: continue
            }
        }
        throw RPCError.failed(
            "option dir \(dir) is outside the download folders (\(roots.joined(separator: ", "))); "
                + "allow another with 'dledger serve --allow-dir DIR'")
    }

    enum Placement: Equatable {
        case inside
        case outside
        /// Inside by its spelling, but this component is a link (or a file): it leads elsewhere.
        case throughLink(String)
    }

    /// Where `dir` is relative to `root`, the root compared as given and as the system resolves it.
    static func placement(of dir: String, under root: String) -> Placement {
        guard root.hasPrefix("/") else { return .outside }
        let top = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard top >= 0 else {
            // A folder not made yet (`serve --dir new`): nothing below it exists to be a link.
            guard errno == ENOENT, let normal = try? AddOptions.directory(root) else { return .outside }
            return dir == normal || dir.hasPrefix(normal == "/" ? "/" : normal + "/") ? .inside : .outside
        }
        defer { close(top) }
        var spellings = [(try? AddOptions.directory(root)) ?? root]
        if let resolved = realpath(root, nil) {
            spellings.append(String(cString: resolved))
            free(resolved)
        }
        for spelling in spellings {
            let rest: Substring
            if dir == spelling {
                rest = ""
            } else if spelling == "/" {
                rest = dir.dropFirst()
            } else if dir.hasPrefix(spelling + "/") {
                rest = dir.dropFirst(spelling.count + 1)
            } else {
                continue
            }
            return walk(rest.split(separator: "/"), from: top, shown: spelling)
        }
        return .outside
    }

    /// Opens each component below `top` without following links, until one is missing.
    private static func walk(_ components: [Substring], from top: Int32, shown: String) -> Placement {
        var fd = dup(top)
        guard fd >= 0 else { return .outside }
        defer { close(fd) }
        var path = shown
        for component in components {
            path += (path.hasSuffix("/") ? "" : "/") + component
            let next = openat(fd, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 {
                if errno == ENOENT { return .inside }
                if errno == ELOOP || errno == ENOTDIR { return .throughLink(path) }
                return .outside
            }
            close(fd)
            fd = next
        }
        return .inside
    }
}
