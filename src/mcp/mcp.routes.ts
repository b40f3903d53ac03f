// The MCP endpoint (docs/mcp.md): Streamable HTTP at /mcp with the official SDK's transport in
// its stateless mode, a new server and transport for every request (no session: any Waypost
// process answers any request), and the protected resource metadata (RFC 9728) that tells a
// client with nothing but the URL where to get a token. Tokens must be bound to this resource
// (RFC 8707); the auth hook (src/http/auth.ts) checks that and answers every 401 with the
// metadata's address.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { PERMISSION_NAMES } from '../core/permissions.ts';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
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

  app.get(METADATA_PATH, { schema: metadataSchema }, async (_request, reply) =>
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

  app.post(MCP_PATH, { schema: postSchema, config: { auth: 'required', boundTo } }, async (request, reply) => {
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

const tags = ['mcp'];
const text = (description: string) => Type.String({ description });
const texts = (description: string) => Type.Array(Type.String(), { description });

/** RFC 9728 2: the protected resource metadata; every field the route sends is declared, none is dropped. */
const metadataSchema = {
  summary: "The assistant endpoint's protected resource metadata",
  description:
    'RFC 9728: where a client that has only the `/mcp` URL gets a token bound to it (docs/mcp.md "Connecting"). ' +
    'No token needed; cached for an hour.',
  tags,
  response: {
    200: Type.Object({
      resource: text('The resource tokens are bound to (RFC 8707): this `/mcp` URL.'),
      authorization_servers: texts("Waypost's own authorization server, its issuer."),
      scopes_supported: texts('Every permission a grant may hold.'),
      bearer_methods_supported: texts('`header`: the token goes in `Authorization: Bearer`.'),
      resource_name: text('What the endpoint is, for a person.'),
      resource_documentation: text('The API documentation page.'),
    }),
  },
};

/**
 * POST /mcp. The body is handed to the MCP transport as it came, so it is declared, not checked
 * here: the transport answers a message it cannot read with a JSON-RPC error. GET and DELETE
 * answer 405 only (no stream, no session) and stay out of the document, which lists what works.
 */
const postSchema = {
  summary: 'Send a JSON-RPC message to the MCP server',
  description:
    'Streamable HTTP in stateless mode (docs/mcp.md "Transport"): one JSON-RPC 2.0 message or a batch, ' +
    'answered in JSON. `Accept` must name both `application/json` and `text/event-stream`. A token bound to ' +
    'this resource is required; without one the 401 names the metadata in `WWW-Authenticate`. GET and ' +
    'DELETE answer 405: there is no stream to open and no session to end.',
  tags,
  body: Type.Unknown({ description: 'A JSON-RPC 2.0 request, notification or response, or an array of them.' }),
  response: {
    200: {
      description: 'The JSON-RPC response (an array for a batch).',
      content: { 'application/json': { schema: Type.Unknown() } },
    },
    202: { description: 'Only notifications or responses were sent: accepted, nothing to answer.', type: 'null' },
    400: {
      description: 'The body is not JSON (a problem document), or JSON that is no JSON-RPC message (a JSON-RPC error).',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    },
    ...problems(401),
    406: {
      description: '`Accept` lacks `application/json` or `text/event-stream` (a JSON-RPC error).',
      content: { 'application/json': { schema: Type.Unknown() } },
    },
    ...problems(415, 429),
  },
};

/** The raw response goes to the SDK; the headers fastify set so far (request id, security, CORS) go along. */
function hijack(_request: FastifyRequest, reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
}
