// One MCP server for one request's caller (docs/mcp.md): the SDK's low-level Server with the
// tools the grant allows and the resources, made afresh for every HTTP request, so nothing of
// a conversation lives in this process (any Waypost process answers any request).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { Compile } from 'typebox/compile';
import type { Auth } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { listResources, readResource, RESOURCE_TEMPLATES } from './mcp.resources.ts';
import { TOOLS, type Tool, type ToolDeps } from './mcp.tools.ts';

const checkers = new Map(TOOLS.map((tool) => [tool.name, Compile(tool.input)]));

/** The tools this caller's grant allows. */
export function toolsFor(auth: Auth): Tool[] {
  return TOOLS.filter((tool) => tool.permission === undefined || auth.permissions.has(tool.permission));
}

const INSTRUCTIONS =
  'Waypost is the person’s own hub of posts, photos and videos (media), and location history. Everything here ' +
  'is theirs, and you see only what they allowed this connection. Times are answered in ISO 8601 or Unix ' +
  'seconds; days are in the person’s time zone (get_settings). Use search for "what did I post about X", ' +
  'get_timeline for a day, where_was_i for "where was I on <date>".';

/** A tool error the model can act on: the problem's words, never a stack or a private value. */
function failed(message: string, errors?: unknown): CallToolResult {
  const text = errors ? `${message}\n${JSON.stringify(errors)}` : message;
  return { isError: true, content: [{ type: 'text', text }] };
}

export function mcpServer(deps: ToolDeps, auth: Auth, log: FastifyBaseLogger, version: string): Server {
  const server = new Server(
    { name: 'waypost', title: 'Waypost', version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const allowed = toolsFor(auth);

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: allowed.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input as { type: 'object'; properties?: Record<string, object> },
      annotations: {
        title: tool.title,
        readOnlyHint: tool.readOnly,
        destructiveHint: false,
        openWorldHint: !tool.readOnly,
      },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name;
    const tool = allowed.find((candidate) => candidate.name === name);
    // A tool the grant does not hold is as unknown as one that does not exist.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const args = request.params.arguments ?? {};
    const started = performance.now();
    // Logged without the arguments: they carry the person's words, places and times.
    const record = (outcome: string) =>
      log.info(
        {
          mcp: {
            tool: name,
            client_id: auth.clientId,
            grant_id: auth.grantId,
            outcome,
            ms: performance.now() - started,
          },
        },
        'mcp tool call',
      );
    const checker = checkers.get(name)!;
    if (!checker.Check(args)) {
      record('invalid_arguments');
      const errors = [...checker.Errors(args)].map((e) => ({ path: e.instancePath || '/', message: e.message }));
      return failed(`The arguments are invalid.`, errors);
    }
    try {
      const answer = await tool.run(deps, auth, args);
      record('ok');
      return {
        content: [{ type: 'text', text: `${answer.summary}\n${JSON.stringify(answer.data)}` }],
        structuredContent: answer.data,
      };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        record(error.code);
        return failed(error.message, error.extra.errors);
      }
      log.error({ err: error, mcp: { tool: name, client_id: auth.clientId } }, 'mcp tool failed');
      record('internal_error');
      return failed('Something went wrong on the server; try again later.');
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(deps, auth) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await readResource(deps, auth, request.params.uri)] };
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        // MCP: a resource that cannot be read is -32002 (not found); the rules match the tools'.
        throw new McpError(-32002, error.message, { uri: request.params.uri });
      }
      throw error;
    }
  });
  return server;
}
