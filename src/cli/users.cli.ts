import type { Config } from '../config.ts';
import { signInLimits } from '../account/sign-in-limits.logic.ts';
import { parseArgs } from 'node:util';
import { accountTraces } from '../account-traces.ts';
import { setupNotice } from '../users/setup.logic.ts';
import { deleteAccount } from '../users/account-deletion.logic.ts';
import type { Database } from '../db/database.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { changePassword, createUser, getUser, listUsers } from '../users/users.logic.ts';
import { confirm, readNewPassword } from './prompt.ts';
import { UsageError, type Output } from './output.ts';

const USAGE = `usage:
  waypost user add <username> [--display-name NAME]   password from a prompt, or the first line of stdin
  waypost user list
  waypost user passwd <username>                       new password as for add
  waypost user delete <username> [--yes]               the account and all its data; asks unless --yes`;

export async function userCommand(database: Database, config: Config, args: string[], out: Output): Promise<void> {
  const { db } = database;
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { 'display-name': { type: 'string' }, yes: { type: 'boolean', default: false } },
  });
  const username = positionals[0];
  switch (action) {
    case 'add': {
      if (!username || positionals.length > 1) throw new UsageError(USAGE);
      const password = await readNewPassword();
      const user = await createUser(db, { username, password, displayName: values['display-name'] });
      out.info(`created user ${user.username}`);
      return;
    }
    case 'list': {
      for (const user of await listUsers(db)) {
        out.print([user.username, user.displayName, new Date(user.createdAt).toISOString()].join('\t'));
      }
      return;
    }
    case 'passwd': {
      if (!username) throw new UsageError(USAGE);
      await getUser(db, username);
      await changePassword(db, username, await readNewPassword());
      out.info(`changed the password of ${username}`);
      return;
    }
    case 'delete': {
      if (!username) throw new UsageError(USAGE);
      const user = await getUser(db, username);
      const sure =
        values.yes ||
        (await confirm(`Delete ${user.username} and everything they own? Type the username: `, user.username));
      if (!sure) throw new UsageError(`not deleted: confirm by typing the username, or pass --yes`);
      // The same deletion as the account page's: docs/data-ownership.md.
      await deleteAccount(database, user.id, accountTraces(mediaStorage(config), signInLimits(config)));
      out.info(`deleted user ${user.username}`);
      // The last account gone: a new setup link, as a start of the server would print.
      const setup = await setupNotice(db, config.baseUrl);
      if (setup) out.info(setup.message);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}
