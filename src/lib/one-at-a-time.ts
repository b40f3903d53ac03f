// Work on one key (a person's derived history) run once at a time, and shared by the callers who
// ask for it while it runs (docs/history.md "Stored, and refreshed where the points changed").

/**
 * A runner of `work` by key: while a run for a key is going, the callers who arrive share the
 * next run, which starts when that one ends. Every caller gets a run that started after it
 * called, so the run sees everything written before the call; callers who arrive during one run
 * share one more, however many they are. Keys run independently. A run that fails fails for the
 * callers who shared it, and the next run starts all the same.
 */
export function oneAtATime<K>(): (key: K, work: () => Promise<void>) => Promise<void> {
  const lines = new Map<K, { ended: Promise<void>; queued?: Promise<void> }>();

  function start(key: K, line: { ended: Promise<void>; queued?: Promise<void> }, work: () => Promise<void>) {
    const run = (async () => work())();
    line.ended = run.then(
      () => undefined,
      () => undefined,
    );
    // After `ended`'s reactions were queued: a caller queued meanwhile keeps the line.
    return run.finally(() => {
      if (!line.queued && lines.get(key) === line) lines.delete(key);
    });
  }

  return (key, work) => {
    const line = lines.get(key);
    if (!line) {
      const fresh = { ended: Promise.resolve() };
      lines.set(key, fresh);
      return start(key, fresh, work);
    }
    if (line.queued) return line.queued;
    const queued = line.ended.then(() => {
      line.queued = undefined;
      return start(key, line, work);
    });
    line.queued = queued;
    return queued;
  };
}
