import fs from 'node:fs';

/** What `read` makes of every process in Linux's /proc (the ones gone meanwhile, read as null, left out). */
export function everyProcess<T>(read: (pid: number) => T | null): T[] {
  const found: T[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const item = read(Number(entry));
    if (item) found.push(item);
  }
  return found;
}
