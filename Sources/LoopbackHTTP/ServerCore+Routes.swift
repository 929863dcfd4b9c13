/// Bookkeeping of served paths, request records and fault counters.
extension ServerCore {
    /// A snapshot of what to answer to one GET or HEAD.
    struct Admission {
        var key: String
        var resource: Resource
        /// 1 for the first request of the path since it was served.
        var number: Int
    }

    func serve(_ path: String, _ resource: Resource) {
        state.withLock { $0.routes[ServerCore.key(path)] = Route(resource: resource) }
    }

    func remove(_ path: String) {
        _ = state.withLock { $0.routes.removeValue(forKey: ServerCore.key(path)) }
    }

    func requests(_ path: String) -> [RecordedRequest] {
        state.withLock { $0.log[ServerCore.key(path)] ?? [] }
    }

    /// Records `head` and, for a GET or HEAD of a served path, counts it and returns what to answer.
    func admit(_ head: RequestHead) -> Admission? {
        let record = RecordedRequest(method: head.method, path: head.target, headers: head.headers)
        return state.withLock { state in
            let key = state.routes[head.target] != nil ? head.target : ServerCore.key(head.path)
            state.log[key, default: []].append(record)
            guard head.method == "GET" || head.method == "HEAD", var route = state.routes[key] else {
                return nil
            }
            route.requestsSeen += 1
            state.routes[key] = route
            var resource = route.resource
            if let after = resource.faults.changeContentAfterRequests, route.requestsSeen > after {
                resource = resource.changedContent()
            }
            return Admission(key: key, resource: resource, number: route.requestsSeen)
        }
    }

    /// Claims the drop and stall faults for one body response of `key`.
    func claimCut(_ key: String) -> Cut {
        state.withLock { state in
            guard var route = state.routes[key] else { return Cut() }
            var cut = Cut()
            let faults = route.resource.faults
            if let drop = faults.dropAfterBytes, route.dropsUsed < faults.dropTimes {
                route.dropsUsed += 1
                cut.dropAfter = max(0, drop)
            }
            if let stall = faults.stallAfterBytes, route.stallsUsed < faults.stallTimes {
                route.stallsUsed += 1
                cut.stallAfter = max(0, stall)
            }
            state.routes[key] = route
            return cut
        }
    }

    /// Sends a body of `key` through `send`, counted among the bodies in flight while it runs.
    func sending(_ key: String, _ send: () -> Bool) -> Bool {
        state.withLock { state in
            state.sending[key, default: 0] += 1
            let bodies = state.sending.values.reduce(0, +)
            state.peak.bodies = max(state.peak.bodies, bodies)
            state.peak.paths = max(state.peak.paths, state.sending.count)
        }
        defer {
            state.withLock { state in
                state.sending[key, default: 1] -= 1
                if state.sending[key] == 0 { state.sending[key] = nil }
            }
        }
        return send()
    }
}
