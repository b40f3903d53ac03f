// settings.json restored: the person's settings become the archive's, through the same change
// as `PUT /settings`. The same settings again change nothing, so a repeated restore is harmless.
import { messageOf } from '../../lib/message-of.ts';
import { changeSettingsObject } from '../../settings/settings.api.ts';
import { ENTRIES, SettingsRecord } from '../format.ts';
import { readJsonEntry } from './restore.read.ts';
import { checker, tally, type Phase } from './restore.phase.ts';

export async function restoreSettings(run: Phase): Promise<void> {
  const name = ENTRIES.settings;
  if (!run.archive.entries.has(name)) return;
  let value: unknown;
  try {
    value = await readJsonEntry(run.archive, name);
  } catch (error) {
    if (run.next()) {
      tally(run, 'settings', 'skipped');
      run.problem(name, messageOf(error));
    }
    return;
  }
  const checked = checker(SettingsRecord)(value);
  const counting = run.next();
  if (!checked.ok) {
    if (counting) {
      tally(run, 'settings', 'skipped');
      run.problem(name, checked.message);
    }
    return;
  }
  try {
    await changeSettingsObject(run.db, run.userId, checked.value);
  } catch (error) {
    if (counting) {
      tally(run, 'settings', 'skipped');
      run.problem(name, messageOf(error));
    }
    return;
  }
  if (counting) tally(run, 'settings', 'stored');
  await run.commit(async () => {});
}
