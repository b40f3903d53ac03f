/** Where a command writes: results to stdout, messages to stderr (so pipes get only results). */
export interface Output {
  print(line: string): void;
  info(line: string): void;
}

export const stdio: Output = {
  print: (line) => process.stdout.write(line + '\n'),
  info: (line) => process.stderr.write(line + '\n'),
};

/** A command used wrongly: the message is the usage text; exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
