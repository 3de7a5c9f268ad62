/** Rows as columns aligned with spaces, the first row a header: what the list commands print without --json. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => [...row[column]].length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] + [...cell].length - cell.length))).join('  ').trimEnd()).join('\n');
}

/** A time as the list commands print it: ISO 8601 UTC to the second. */
export const when = (at: Date | null, none: string): string => (at ? at.toISOString().replace(/\.\d{3}Z$/, 'Z') : none);
