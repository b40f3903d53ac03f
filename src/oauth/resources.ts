// The protected resources this authorization server issues audience-bound tokens for (RFC 8707
// resource indicators; docs/mcp.md "Tokens bound to the assistant endpoint"). One today: the MCP
// endpoint. A token asked for without a `resource` is a plain API token, as every app has
// always had (docs/oauth.md); a token for a resource is good there and nowhere else.
import { PERMISSION_NAMES } from '../core/permissions.ts';

/** Where the MCP server answers (src/mcp/). */
export const MCP_PATH = '/mcp';

/** The MCP endpoint's resource identifier: its absolute URL, as MCP clients send it. */
export function mcpResource(baseUrl: string): string {
  return new URL(MCP_PATH, baseUrl).href;
}

/** Whether `resource` names a protected resource of this server. */
export function knownResource(baseUrl: string, resource: string): boolean {
  return resource === mcpResource(baseUrl);
}

/** What oidc-provider needs to know of a resource server: every permission, opaque tokens. */
export function resourceServerInfo(accessTokenTtl: number) {
  return {
    scope: PERMISSION_NAMES.join(' '),
    accessTokenFormat: 'opaque' as const,
    accessTokenTTL: accessTokenTtl,
  };
}
