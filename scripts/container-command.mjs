// Prints the image's `waypost` command (docs/container.md): the server's Node flags
// (scripts/server-flags.mjs) and src/cli.ts, run by the image's Node 24 with no wrapper process,
// so `waypost` is the container's first process and gets its stop signal. The Containerfile
// writes it to /usr/local/bin/waypost. Usage: node scripts/container-command.mjs [app folder]
import { SERVER_NODE_FLAGS } from './server-flags.mjs';

const app = process.argv[2] ?? '/app';
const flags = SERVER_NODE_FLAGS.join(' ');
process.stdout.write(
  [
    '#!/bin/sh',
    "# Waypost's command in its container image: waypost serve, worker, user, ... (written by scripts/container-command.mjs).",
    `exec node ${flags} ${app}/src/cli.ts "$@"`,
    '',
  ].join('\n'),
);
