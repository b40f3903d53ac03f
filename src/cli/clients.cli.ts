import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { addClient, deleteClient, listClients } from '../oauth/clients.logic.ts';
import { createProvider } from '../oauth/provider.ts';
import { UsageError, type Output } from './output.ts';

const USAGE = `usage:
  waypost client add --name NAME --redirect-uri URI [--redirect-uri URI ...] [--confidential]
        prints the client id; a confidential client's secret is printed once, on the next line
  waypost client list
  waypost client delete <client_id>            also ends every grant and token of that client`;

export async function clientCommand(db: Db, config: Config, args: string[], out: Output): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'delete') {
    // One id and no options, taken as it is: ids are base64url and may begin with '-', which
    // an option parser would take for an option (`--` before it is accepted too).
    const ids = rest[0] === '--' ? rest.slice(1) : rest;
    const [clientId] = ids;
    if (!clientId || ids.length > 1) throw new UsageError(USAGE);
    await deleteClient(db, clientId);
    out.info(`deleted client ${clientId}`);
    return;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      confidential: { type: 'boolean', default: false },
    },
  });
  switch (action) {
    case 'add': {
      const redirectUris = values['redirect-uri'] ?? [];
      if (!values.name || redirectUris.length === 0 || positionals.length > 0) throw new UsageError(USAGE);
      const provider = createProvider(config, db, createLogger({ logLevel: 'silent', logFormat: 'json' }));
      const client = await addClient(provider, db, config.secretKey, {
        name: values.name,
        redirectUris,
        confidential: values.confidential,
      });
      out.print(client.clientId);
      if (client.clientSecret) {
        out.print(client.clientSecret);
        out.info(`created confidential client ${client.name}: id, then secret (shown only now)`);
      } else {
        out.info(`created public client ${client.name}: use PKCE (S256), no secret`);
      }
      return;
    }
    case 'list': {
      for (const client of await listClients(db)) {
        out.print(
          [
            client.clientId,
            client.confidential ? 'confidential' : 'public',
            client.name,
            client.redirectUris.join(' '),
          ].join('\t'),
        );
      }
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}
