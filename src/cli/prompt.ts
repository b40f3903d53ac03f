// Reading a password: from a hidden prompt on a terminal, or the first line of standard
// input otherwise. Never from the command line, where `ps` and shell history would keep it.
import { createInterface } from 'node:readline';

async function readFirstLineOfStdin(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { stdin, stderr } = process;
    stderr.write(question);
    let answer = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      stderr.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return readFirstLineOfStdin();
  const first = await promptHidden('Password: ');
  const second = await promptHidden('Password again: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}

export async function confirm(question: string, expected: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  process.stderr.write(question);
  return (await readFirstLineOfStdin()).trim() === expected;
}
