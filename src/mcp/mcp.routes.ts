// The MCP endpoint (docs/mcp.md): Streamable HTTP at /mcp with the official SDK's transport in
// its stateless mode, a new server and transport for every request (no session: any Waypost
// process answers any request), and the protected resource metadata (RFC 9728) that tells a
// client with nothing but the URL where to get a token. Tokens must be bound to this resource
// (RFC 8707); the auth hook (src/http/auth.ts) checks that and answers every 401 with the
// metadata's address.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { PERMISSION_NAMES } from '../core/permissions.ts';
import type { Db } from '../db/database.ts';
import type { PageCache } from '../items/public-pages.ts';
import { MCP_PATH, mcpResource } from '../oauth/resources.ts';
import { mcpLimits, spendRequest } from './mcp.limits.ts';
import { mcpServer } from './mcp.server.ts';
import type { ToolDeps } from './mcp.tools.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** RFC 9728 3.1: the metadata of a resource with a path lives at the well-known URI plus that path. */
export const METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export interface McpRoutesOptions {
  db: Db;
  config: Config;
  deps: Omit<ToolDeps, 'db' | 'baseUrl'>;
  pages?: PageCache | undefined;
}

export async function mcpRoutes(app: FastifyInstance, { db, config, deps, pages }: McpRoutesOptions) {
  const resource = mcpResource(config.baseUrl);
  const metadataUrl = new URL(METADATA_PATH, config.baseUrl).href;
  const limits = mcpLimits(config.secretKey, config.mcpRequestsPerMinute);
  const toolDeps: ToolDeps = { ...deps, db, baseUrl: config.baseUrl };
  const boundTo = { resource, metadataUrl };
  const hide = { hide: true };

  app.get(METADATA_PATH, { schema: hide }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').send({
      resource,
      // Waypost's own authorization server (its RFC 8414 metadata is at the issuer's well-known URI).
      authorization_servers: [new URL(config.baseUrl).origin],
      scopes_supported: PERMISSION_NAMES,
      bearer_methods_supported: ['header'],
      resource_name: 'Waypost for AI assistants (MCP)',
      resource_documentation: new URL('/docs', config.baseUrl).href,
    }),
  );

  app.post(MCP_PATH, { schema: hide, config: { auth: 'required', boundTo } }, async (request, reply) => {
    const auth = request.auth!;
    await spendRequest(db, limits, auth.grantId);
    const server = mcpServer(toolDeps, auth, request.log, pkg.version);
    // Stateless (no session id): each request is complete in itself; JSON answers, no SSE stream.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    hijack(request, reply);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    // A tool may have written: copies of public pages stop being replayed, as after any write
    // fastify answers (src/items/public-pages.ts); the hijacked reply skips the onSend hook.
    reply.raw.on('finish', () => pages?.answered('POST', reply.raw.statusCode));
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: no stream of server-sent messages to open (GET) and no session to end (DELETE).
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      schema: hide,
      config: { auth: 'required', boundTo },
      handler: async () => {
        throw new AppError(
          'method_not_allowed',
          'This MCP server is stateless: send each JSON-RPC message with POST.',
          {
            headers: { allow: 'POST' },
          },
        );
      },
    });
  }
}

/** The raw response goes to the SDK; the headers fastify set so far (request id, security, CORS) go along. */
function hijack(_request: FastifyRequest, reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
}
