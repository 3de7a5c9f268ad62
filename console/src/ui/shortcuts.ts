// The page's keys (console/src/model/shortcuts.ts says which key is which command), heard on the
// whole document while the page that asks for them is shown.
import { useEffect, useRef } from 'react';
import { commandOf, type Command } from '../model/shortcuts.ts';

/** Runs `run` with each of the `allowed` commands the agent presses (not while typing in a field). */
export function useShortcuts<C extends Command>(allowed: readonly C[], run: (command: C) => void): void {
  const latest = useRef({ allowed, run });
  latest.current = { allowed, run };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const command = commandOf(e, latest.current.allowed);
      if (!command) return;
      e.preventDefault();
      latest.current.run(command);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
