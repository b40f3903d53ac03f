// Types of scripts/server-flags.mjs (plain JavaScript, read by scripts/node24.mjs under any Node).
export declare const SERVER_NODE_FLAGS: readonly string[];
