import FuzzSupport
import Testing

@testable import LedgerCore

/// The event payload decoder (`JSONReader` under `Entry.decode(kind:payload:)`) and the one-task read of an add
/// (`Entry.decode(kind:payload:keepingOnly:)`, `AddOutline`) fed damaged payloads: each either throws
/// `PayloadError` or gives an entry whose own payload decodes equal; the one-task read refuses exactly what the
/// whole read refuses and otherwise gives that task and the whole add's outline. Never a trap, a read outside the
/// bytes, or a hang.
@Suite struct PayloadFuzzTests {
    static func check(kind: String, payload: [UInt8], only: TaskID) {
        let k = Array(kind.utf8)
        let whole: Entry?
        do {
            whole = try Mutator.exact(k) { k in
                try Mutator.exact(payload) { try Entry.decode(kind: k, payload: $0) }
            }
        } catch {
            #expect(error is PayloadError, "\(error)")
            whole = nil
        }
        if let whole {
            do {
                let again = try Entry.decode(kind: whole.event.kind, payload: whole.encodedPayload())
                #expect(again == whole, "a decoded payload does not read back equal")
            } catch {
                Issue.record("a decoded entry's own payload does not read: \(error)")
            }
        }
        let outlined: (entry: Entry, outline: AddOutline?)?
        do {
            outlined = try Mutator.exact(k) { k in
                try Mutator.exact(payload) { try Entry.decode(kind: k, payload: $0, keepingOnly: only) }
            }
        } catch {
            #expect(error is PayloadError, "\(error)")
            outlined = nil
        }
        #expect(
            (whole == nil) == (outlined == nil), "the whole and the one-task read disagree on readability")
        if let whole, let outlined {
            #expect(outlined.entry.event == AddOutlineTests.narrowed(whole.event, to: only))
            #expect(outlined.entry.undoes == whole.undoes && outlined.entry.redoes == whole.redoes)
            #expect(outlined.outline == AddOutline(whole.event))
        }
    }

    @Test(.timeLimit(.minutes(5))) func damagedPayloadsThrowOrReadBackEqual() {
        let corpus = FuzzCorpus.payloads
        var m = Mutator(seed: 0x5EED_9A71)
        for i in 0..<Mutator.iterations(6_000) {
            let (kind, payload) = corpus[i % corpus.count]
            // Now and then the payload of one kind read as another (a row whose kind column was changed).
            let asKind = m.rng.chance(0.05) ? m.rng.pick(Event.allKinds + ["", "tasksAdded\u{0}"]) : kind
            Self.check(kind: asKind, payload: m.mutate(payload), only: TaskID(m.rng.below(45)))
        }
    }

    @Test(.timeLimit(.minutes(5))) func aPayloadCutShortAtAnyLengthIsRefused() {
        for (kind, payload) in FuzzCorpus.payloads.prefix(60) {
            for length in 0..<payload.count {
                let cut = Array(payload[..<length])
                #expect(throws: PayloadError.self) { try Entry.decode(kind: kind, payload: cut) }
                Self.check(kind: kind, payload: cut, only: 1)
            }
        }
    }

    /// Nesting far deeper than any writer makes, under a key the decoder does not know (skipped) and in place of
    /// values it does: refused, not a recursion that overflows the stack.
    @Test func deepNestingIsRefused() {
        for open in ["[", "{\"a\":"] {
            let deep = String(repeating: open, count: 100_000)
            for kind in ["tasksAdded", "groupsAdded", "tasksMoved", "transferFailed", "sectionInserted"] {
                for payload in ["{\"zz\":\(deep)", "{\"tasks\":\(deep)", "{\"options\":\(deep)", deep] {
                    Self.check(kind: kind, payload: Array(payload.utf8), only: 1)
                }
            }
        }
    }

    /// `sealed:v1:<task>:<nonce>:<box>` as a payload or snapshot carries it, damaged: nil, or the very text.
    @Test(.timeLimit(.minutes(5))) func damagedSealedTextsAreRefusedOrReadAsWritten() {
        let corpus = [
            FuzzCorpus.sealed,
            SealedSecret(keyTask: Int64.max, nonce: Array(repeating: 0xFF, count: 12), box: Array(0..<16))
                .text,
            SealedSecret(keyTask: 1, nonce: Array(0..<12), box: Array(repeating: 0, count: 300)).text,
        ].map { Array($0.utf8) }
        var m = Mutator(seed: 0x5EED_5EA1)
        for i in 0..<Mutator.iterations(4_000) {
            let text = String(decoding: m.mutate(corpus[i % corpus.count]), as: UTF8.self)
            guard let sealed = SealedSecret(text: text) else { continue }
            #expect(sealed.text == text)
            #expect(
                sealed.nonce.count == SealedSecret.nonceLength && sealed.box.count >= SealedSecret.tagLength)
            #expect(sealed.keyTask > 0)
        }
    }
}
