/** Whether a database error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // PostgreSQL: SQLSTATE 23505. better-sqlite3: SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY.
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
