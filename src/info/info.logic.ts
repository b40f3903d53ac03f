// GET /info: what a client may want to know before it asks for anything. Every value is read
// from the constant or configuration the server enforces, never written down a second time,
// so the answer cannot drift from the behaviour (the info tests check both sides).
import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { COUNT_DEFAULT, COUNT_MAX } from '../items/items.schemas.ts';
import { LOCATION_BATCH_MAX } from '../locations/locations.schemas.ts';
import { PERMISSIONS, PERMISSION_NAMES } from '../core/permissions.ts';
import { TEXT_MAX } from '../posts/posts.schemas.ts';
import { connectors } from '../services/connectors/index.ts';
import { SERVICE_TYPES } from '../services/connectors/types.ts';
import { VIEWS_PER_USER_MAX } from '../views/views.schemas.ts';
import type { Info } from './info.schemas.ts';
import { SIGN_IN_WINDOW_MS } from '../account/sign-in-limits.logic.ts';
import { REGISTRATION_WINDOW_MS } from '../oauth/registration-limits.ts';
import { MCP_WINDOW_MS } from '../mcp/mcp.limits.ts';

/** package.json, two folders up from src/info (and from dist/info in a build). */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function info(config: Config): Info {
  const window = SIGN_IN_WINDOW_MS / 1000;
  return {
    name: 'Waypost',
    version: pkg.version,
    permissions: PERMISSION_NAMES.map((name) => ({ name, description: PERMISSIONS[name] })),
    service_types: SERVICE_TYPES.map((type) => ({
      type,
      description: connectors[type].description,
      capabilities: [...connectors[type].capabilities],
    })),
    limits: {
      count_default: COUNT_DEFAULT,
      count_max: COUNT_MAX,
      request_body_bytes: config.bodyLimit,
      upload_bytes: config.uploadLimit,
      post_text_max: TEXT_MAX,
      location_batch_max: LOCATION_BATCH_MAX,
      views_max: VIEWS_PER_USER_MAX,
      rate_limits: [
        // docs/sign-in-limits.md: budgets per account and address and per address; per account a
        // throttle (each attempt past the limit waits, up to max_delay_seconds), never a lockout.
        {
          name: 'sign_in_failures',
          limit: config.signInAccountAddressLimit,
          window_seconds: window,
          per: 'account_and_ip',
        },
        { name: 'sign_in_failures', limit: config.signInAddressLimit, window_seconds: window, per: 'ip' },
        {
          name: 'sign_in_failures',
          limit: config.signInAccountFree,
          window_seconds: window,
          per: 'account',
          max_delay_seconds: config.signInMaxDelaySeconds,
        },
        // docs/oauth.md "Self-registration": apps an address may register at /oauth/register.
        ...(config.clientRegistrationOpen
          ? [
              {
                name: 'oauth_registrations',
                limit: config.clientRegistrationLimit,
                window_seconds: REGISTRATION_WINDOW_MS / 1000,
                per: 'ip',
              },
            ]
          : []),
        // docs/mcp.md "Limits": the requests an assistant's grant may make to /mcp.
        {
          name: 'mcp_requests',
          limit: config.mcpRequestsPerMinute,
          window_seconds: MCP_WINDOW_MS / 1000,
          per: 'grant',
        },
      ],
    },
    urls: {
      oauth_metadata: `${config.baseUrl}/.well-known/oauth-authorization-server`,
      openapi: `${config.baseUrl}/openapi.json`,
      docs: `${config.baseUrl}/docs`,
    },
  };
}
