// The container image's health check (docs/container.md): exits 0 when GET /readyz answers 200
// (the database answers), 1 otherwise. Asks the address and port the server listens on
// (WAYPOST_HOST, WAYPOST_PORT), this machine's loopback when it listens on every address.
// Plain JavaScript with nothing but Node's own modules, so it needs no TypeScript and starts fast.
const host = process.env.WAYPOST_HOST?.trim() || '127.0.0.1';
const port = process.env.WAYPOST_PORT?.trim() || '8080';
const address = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;

try {
  const response = await fetch(`http://${address}:${port}/readyz`, { signal: AbortSignal.timeout(4000) });
  if (response.status !== 200) {
    process.stderr.write(`/readyz answered ${response.status}\n`);
    process.exit(1);
  }
} catch (error) {
  process.stderr.write(`/readyz did not answer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
