import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers.ts';
import { authenticate } from '../users/users.logic.ts';
import { findUserByUsername } from '../users/users.repo.ts';

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

describe('waypost user', () => {
  it('adds a user with the password from stdin, hashed with scrypt', async () => {
    const result = await runCli(['user', 'add', 'Alice', '--display-name', 'Alice Liddell'], {
      env,
      stdin: 'through the looking glass\n',
    });
    expect(result).toMatchObject({ code: 0, stderr: 'created user Alice\n' });
    const row = await findUserByUsername(test.database.db, 'alice');
    expect(row).toMatchObject({ username: 'Alice', display_name: 'Alice Liddell' });
    expect(row?.password_hash).toMatch(/^scrypt\$17\$8\$1\$/);
    expect(row?.password_hash).not.toContain('looking glass');
    expect(await authenticate(test.database.db, 'ALICE', 'through the looking glass')).toMatchObject({
      username: 'Alice',
    });
  });

  it('refuses a name taken in another case, a bad name and a short password', async () => {
    expect(await runCli(['user', 'add', 'alice'], { env, stdin: 'long enough password\n' })).toMatchObject({
      code: 1,
      stderr: 'waypost: The username "alice" is taken.\n',
    });
    const bad = await runCli(['user', 'add', 'no spaces'], { env, stdin: 'long enough password\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('username must be 2 to 30 letters, digits or underscores');
    const short = await runCli(['user', 'add', 'bob'], { env, stdin: 'short\n' });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password must be at least 8 characters');
    expect(await findUserByUsername(test.database.db, 'bob')).toBeUndefined();
  });

  it('never takes the password from the command line', async () => {
    const result = await runCli(['user', 'add', 'carol', 'hunter2hunter2'], { env, stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage:');
  });

  it('lists users', async () => {
    await runCli(['user', 'add', 'bob'], { env, stdin: 'another good password\n' });
    const result = await runCli(['user', 'list'], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t').slice(0, 2));
    expect(lines).toEqual([
      ['Alice', 'Alice Liddell'],
      ['bob', 'bob'],
    ]);
  });

  it('changes a password', async () => {
    expect(await runCli(['user', 'passwd', 'bob'], { env, stdin: 'a brand new password\n' })).toMatchObject({
      code: 0,
    });
    expect(await authenticate(test.database.db, 'bob', 'another good password')).toBeUndefined();
    expect(await authenticate(test.database.db, 'bob', 'a brand new password')).toMatchObject({ username: 'bob' });
    expect(await runCli(['user', 'passwd', 'nobody'], { env, stdin: 'a brand new password\n' })).toMatchObject({
      code: 1,
      stderr: 'waypost: There is no user "nobody".\n',
    });
  });

  it('deletes a user only when confirmed', async () => {
    const unconfirmed = await runCli(['user', 'delete', 'bob'], { env });
    expect(unconfirmed.code).toBe(2);
    expect(await findUserByUsername(test.database.db, 'bob')).toBeDefined();
    expect(await runCli(['user', 'delete', 'bob', '--yes'], { env })).toMatchObject({
      code: 0,
      stderr: 'deleted user bob\n',
    });
    expect(await findUserByUsername(test.database.db, 'bob')).toBeUndefined();
  });

  it('stops with a message naming a bad configuration variable', async () => {
    const result = await runCli(['user', 'list'], { env: { ...env, WAYPOST_PORT: 'x' } });
    expect(result).toMatchObject({
      code: 1,
      stderr: 'waypost: configuration error: WAYPOST_PORT: expected a whole number, got "x"\n',
    });
  });
});
