// OpenAPI 3.1 generated from the route schemas (docs/conventions.md 3), served at /openapi.json, with
// browsable docs at /docs whose assets are all served from here (no request leaves the machine).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PERMISSIONS } from '../core/permissions.ts';
import { ProblemSchema } from './schemas.ts';

const pkg = { name: 'Waypost', version: process.env.npm_package_version ?? '0.1.0' };

async function openapi(app: FastifyInstance, options: { baseUrl: string }) {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${pkg.name} API`,
        version: pkg.version,
        description:
          'A self-hosted personal data hub: posts, media and locations, each public or private. ' +
          'Times are Unix epoch seconds; errors are RFC 9457 problem documents.',
      },
      servers: [{ url: options.baseUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'Authorization Code Grant with PKCE (S256). Tokens go in `Authorization: Bearer`.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${options.baseUrl}/oauth/authorize`,
                tokenUrl: `${options.baseUrl}/oauth/token`,
                refreshUrl: `${options.baseUrl}/oauth/token`,
                scopes: PERMISSIONS,
              },
            },
          },
        },
      },
    },
    // Name shared schemas by their $id, not def-0 (docs/design.md "Pitfalls").
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

export default fp(openapi, { name: 'openapi' });
