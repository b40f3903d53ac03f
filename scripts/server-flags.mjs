// Node's flags for Waypost's own processes (the `waypost` command, and the benchmarks' servers,
// which run as it does). Read by scripts/node24.mjs; nothing but plain JavaScript here.
//
// --max-semi-space-size=4: V8 lets the young generation grow (here to about 64 MB between
// scavenges) when a process allocates fast, and a large download allocates fast (several
// hundred bytes a point). A server's first download of a million points grew its RSS by
// 180-210 MB on SQLite; with semi-spaces of at most 4 MB, by 17 MB, at about the same speed
// (BENCHMARKS.md, fifth round; docs/history.md "Downloads").
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4'];
