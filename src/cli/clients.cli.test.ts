import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, TEST_SECRET_KEY, type TestDatabase } from '../../test/helpers.ts';
import { clientSecretFor } from '../oauth/clients.logic.ts';

let test: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  test = await createTestDatabase();
  env = cliEnv(test);
});
afterAll(async () => {
  await test.database.close();
  await test.drop();
});

const payloadOf = async (clientId: string) => {
  const row = await test.database.db
    .selectFrom('oauth_entities')
    .select('payload')
    .where('kind', '=', 'Client')
    .where('id', '=', clientId)
    .executeTakeFirst();
  return row ? (JSON.parse(row.payload) as Record<string, unknown>) : undefined;
};

describe('waypost client', () => {
  let publicId = '';

  it('adds a public client and prints only its id', async () => {
    const result = await runCli(
      [
        'client',
        'add',
        '--name',
        'My App',
        '--redirect-uri',
        'https://app.example/cb',
        '--redirect-uri',
        'https://app.example/cb2',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    publicId = lines[0]!;
    expect(publicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(result.stderr).toBe('created public client My App: use PKCE (S256), no secret\n');
    expect(await payloadOf(publicId)).toMatchObject({
      client_name: 'My App',
      redirect_uris: ['https://app.example/cb', 'https://app.example/cb2'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('adds a confidential client, prints its secret once and stores no secret', async () => {
    const result = await runCli(
      ['client', 'add', '--name', 'Server', '--redirect-uri', 'https://server.example/cb', '--confidential'],
      { env },
    );
    expect(result.code).toBe(0);
    const [id, secret] = result.stdout.trim().split('\n');
    expect(secret).toBe(clientSecretFor(Buffer.from(TEST_SECRET_KEY, 'hex'), id!));
    const payload = await payloadOf(id!);
    expect(payload).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(JSON.stringify(payload)).not.toContain(secret);
  });

  it('adds a native app with a private-use scheme', async () => {
    const result = await runCli(['client', 'add', '--name', 'Phone', '--redirect-uri', 'org.example.app:/cb'], { env });
    expect(result.code).toBe(0);
    expect(await payloadOf(result.stdout.trim())).toMatchObject({ application_type: 'native' });
  });

  it('refuses a bad redirect URI and missing options', async () => {
    const bad = await runCli(['client', 'add', '--name', 'X', '--redirect-uri', 'https://x.example/cb#frag'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^waypost: .*fragment/);
    expect((await runCli(['client', 'add', '--name', 'X'], { env })).code).toBe(2);
  });

  it('lists clients', async () => {
    const result = await runCli(['client', 'list'], { env });
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t').slice(1, 3));
    expect(rows).toEqual(
      expect.arrayContaining([
        ['public', 'My App'],
        ['confidential', 'Server'],
        ['public', 'Phone'],
      ]),
    );
    expect(rows).toHaveLength(3);
  });

  it('deletes a client; an unknown id is an error', async () => {
    expect(await runCli(['client', 'delete', publicId], { env })).toMatchObject({
      code: 0,
      stderr: `deleted client ${publicId}\n`,
    });
    expect(await payloadOf(publicId)).toBeUndefined();
    expect(await runCli(['client', 'delete', publicId], { env })).toMatchObject({
      code: 1,
      stderr: `waypost: There is no client "${publicId}".\n`,
    });
  });

  it("takes an id that begins with '-' as an id, not an option", async () => {
    for (const args of [['-yghFrHrZYF_5tk5SF6XXg'], ['--', '-yghFrHrZYF_5tk5SF6XXg']]) {
      expect(await runCli(['client', 'delete', ...args], { env })).toMatchObject({
        code: 1,
        stderr: 'waypost: There is no client "-yghFrHrZYF_5tk5SF6XXg".\n',
      });
    }
  });
});
