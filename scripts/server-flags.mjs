// Node's flags for Waypost's own processes (the `waypost` command, and the benchmarks' servers,
// which run as it does). Read by scripts/node24.mjs; nothing but plain JavaScript here.
//
// --max-semi-space-size=8: V8 lets the young generation grow (to about 64 MB between
// scavenges) when a process allocates fast, and a large download allocates fast (several
// hundred bytes a point): a server's first download of a million points grew its RSS by
// 180-210 MB on SQLite with no limit. With semi-spaces of at most 8 MB it grows by 21 MB, as
// with 4 MB (docs/history.md "Downloads"), while a private page costs 15-25 % less CPU than
// with 4 MB, which scavenged twice as often (BENCHMARKS.md, "The cost of a private page").
// An import's child process keeps 4 MB (IMPORT_NODE_FLAGS, src/imports/imports.fork.ts).
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8'];
