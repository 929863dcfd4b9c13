// LoopbackHTTP module: see ARCHITECTURE.md.
