import LedgerFrontEnd

/// A JSON value as the RPC reads and writes it: the front ends' one JSON type (``LedgerFrontEnd/JSONValue``), with
/// its one escaping rule, under the name the RPC's API has always used. `RPCValue+Parsing.swift` reads it off the
/// wire.
public typealias RPCValue = JSONValue
