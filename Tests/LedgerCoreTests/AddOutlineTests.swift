import Foundation
import Testing

@testable import LedgerCore

/// An add read for one task's sake (`audit ID` in words) is that task's part of the whole add, its outline is the
/// whole add's, and it refuses every payload the whole decode refuses.
@Suite struct AddOutlineTests {
    static func options(_ agent: String) -> TaskOptions {
        var o = TaskOptions()
        o.userAgent = agent
        o.headers = [HeaderField(name: "X-Trace", value: .plain("on"))]
        return o
    }

    /// Adds of every shape the writer makes: escapes and non-ASCII in every string, names and digests on some
    /// tasks, options shared, mixed, or on later tasks only; one group and several, a new section and none.
    static let adds: [Event] = {
        let tricky = "a \"q\" \\ b\nc é 日本 🎉"
        func tasks(_ ids: ClosedRange<TaskID>, options: (TaskID) -> TaskOptions = { _ in TaskOptions() })
            -> [NewTask]
        {
            ids.map { id in
                NewTask(
                    id: id, url: "https://h.example/\(id)/\(id % 3 == 0 ? tricky : "f").iso",
                    name: id % 4 == 0 ? tricky : nil,
                    sha256: id % 5 == 0 ? String(repeating: "ab", count: 32) : nil,
                    directory: id % 2 == 0 ? "/d/\(tricky)" : "/d", options: options(id))
            }
        }
        return [
            .tasksAdded(tasks: tasks(1...40), section: 0, index: 0, newSectionTitle: "Downloads"),
            .tasksAdded(tasks: tasks(7...9), section: 2, index: 5, newSectionTitle: nil),
            .tasksAdded(
                tasks: tasks(1...12) { _ in options("curl") }, section: 1, index: 0, newSectionTitle: nil),
            .tasksAdded(
                tasks: tasks(1...12) { options($0 == 6 ? "wget" : "curl") }, section: 0, index: 3,
                newSectionTitle: tricky),
            .tasksAdded(
                tasks: tasks(1...6) { $0 == 1 ? TaskOptions() : options("curl") }, section: 0, index: 0,
                newSectionTitle: nil),
            .tasksAdded(tasks: [], section: 0, index: 0, newSectionTitle: nil),
            .groupsAdded([
                TaskGroup(tasks: tasks(1...10), section: 0, index: 2, newSectionTitle: nil),
                TaskGroup(tasks: tasks(11...25), section: 0, index: 0, newSectionTitle: tricky),
                TaskGroup(tasks: tasks(26...30), section: 3, index: 0, newSectionTitle: "Later"),
            ]),
            .groupsAdded([
                TaskGroup(
                    tasks: tasks(1...4) { _ in options("curl") }, section: 0, index: 0, newSectionTitle: "A"),
                TaskGroup(
                    tasks: tasks(5...8) { _ in options("curl") }, section: 1, index: 0, newSectionTitle: "B"),
            ]),
            .groupsAdded([
                TaskGroup(
                    tasks: tasks(1...4) { _ in options("curl") }, section: 0, index: 0, newSectionTitle: "A"),
                TaskGroup(tasks: tasks(5...8), section: 1, index: 0, newSectionTitle: "B"),
            ]),
        ]
    }()

    /// The event with only `id`'s tasks left in it: what the light decode must give.
    static func narrowed(_ event: Event, to id: TaskID) -> Event {
        switch event {
        case .tasksAdded(let tasks, let section, let index, let title):
            return .tasksAdded(
                tasks: tasks.filter { $0.id == id }, section: section, index: index, newSectionTitle: title)
        case .groupsAdded(let groups):
            return .groupsAdded(
                groups.map {
                    TaskGroup(
                        tasks: $0.tasks.filter { $0.id == id }, section: $0.section, index: $0.index,
                        newSectionTitle: $0.newSectionTitle)
                })
        default:
            return event
        }
    }

    static func decode(_ kind: String, _ payload: [UInt8], keeping id: TaskID) throws -> (Entry, AddOutline?)
    {
        var k = Array(kind.utf8)
        return try k.withUnsafeMutableBytes { k in
            try payload.withUnsafeBytes { p in
                try Entry.decode(kind: UnsafeRawBufferPointer(k), payload: p, keepingOnly: id)
            }
        }
    }

    @Test func anAddReadForOneTaskIsThatTasksPartAndTheWholeAddsOutline() throws {
        for event in Self.adds {
            let entry = Entry(event, undoes: 4, redoes: nil, origin: "aria2 RPC")
            let payload = entry.encodedPayload()
            let whole = try Entry.decode(kind: event.kind, payload: payload)
            #expect(whole == entry)
            let outline = try #require(AddOutline(event))
            for id in [0, 1, 2, 6, 7, 9, 11, 20, 25, 30, 40, 41] as [TaskID] {
                let (light, lightOutline) = try Self.decode(event.kind, payload, keeping: id)
                #expect(light.event == Self.narrowed(event, to: id), "\(event.kind) #\(id)")
                #expect(light.undoes == 4 && light.origin == "aria2 RPC")
                #expect(lightOutline == outline, "\(event.kind) #\(id)")
            }
        }
        // Any other event is decoded whole, without an outline.
        for event in sampleEvents where AddOutline(event) == nil {
            let payload = Entry(event).encodedPayload()
            let (light, outline) = try Self.decode(event.kind, payload, keeping: 1)
            #expect(light == (try Entry.decode(kind: event.kind, payload: payload)))
            #expect(outline == nil)
        }
    }

    @Test func theOutlineSaysWhetherTheTasksShareTheirOptions() throws {
        let shared = try #require(AddOutline(Self.adds[2]))
        #expect(shared.optionsShared && shared.firstOptions == Self.options("curl"))
        #expect(try #require(AddOutline(Self.adds[3])).optionsShared == false)
        // The first task has none: nothing is said of the others'.
        let firstBare = try #require(AddOutline(Self.adds[4]))
        #expect(firstBare.optionsShared && firstBare.firstOptions == TaskOptions())
        #expect(try #require(AddOutline(Self.adds[5])).firstOptions == nil)
        #expect(try #require(AddOutline(Self.adds[7])).optionsShared)
        #expect(try #require(AddOutline(Self.adds[8])).optionsShared == false)
        let groups = try #require(AddOutline(Self.adds[6]))
        #expect(groups.groups.map(\.ids) == [Array(1...10), Array(11...25), Array(26...30)])
        // The second group's new section goes in at 0: the first group's section 0 becomes 1.
        #expect(groups.finalSections == [1, 0, 3])
    }

    /// Damage anywhere in an add (a task that is not the one read included) makes both decodes refuse it; none
    /// traps. A high surrogate followed by an escape that is not a low one used to overflow and trap.
    @Test func aDamagedAddIsRefusedByBothDecodes() throws {
        let event = Self.adds[0]
        let text = String(decoding: Entry(event).encodedPayload(), as: UTF8.self)
        let url7 = #""url":"https://h.example/7/f.iso""#
        #expect(text.contains(url7))
        let damaged = [
            text.replacingOccurrences(of: url7 + ",", with: ""),
            text.replacingOccurrences(of: url7, with: #""url":"https://h.example/7/\u12""#),
            text.replacingOccurrences(of: url7, with: #""url":"https://h.example/\uD800\u0041""#),
            text.replacingOccurrences(of: url7, with: #""url":7"#),
            text.replacingOccurrences(of: #""id":7,"#, with: #""id":"7","#),
            text.replacingOccurrences(of: #""id":30,"#, with: #""id":30,"options":{"headers":7},"#),
            text + "x",
            String(text.dropLast()),
            String(text.prefix(text.count / 2)),
        ]
        for payload in damaged.map({ Array($0.utf8) }) {
            #expect(payload != Entry(event).encodedPayload())
            #expect(throws: PayloadError.self) { try Entry.decode(kind: event.kind, payload: payload) }
            for id in [1, 7, 40] as [TaskID] {
                #expect(throws: PayloadError.self, "#\(id)") {
                    try Self.decode(event.kind, payload, keeping: id)
                }
            }
        }
        // A lone high surrogate is no pair: it reads as U+FFFD both ways, as before.
        let lone = text.replacingOccurrences(of: url7, with: #""url":"https://h.example/\uD800x""#)
        let whole = try Entry.decode(kind: event.kind, payload: Array(lone.utf8))
        let (light, _) = try Self.decode(event.kind, Array(lone.utf8), keeping: 7)
        #expect(light.event == Self.narrowed(whole.event, to: 7))
        guard case .tasksAdded(let tasks, _, _, _) = light.event else { return }
        #expect(tasks.first?.url == "https://h.example/\u{FFFD}x")
    }
}
