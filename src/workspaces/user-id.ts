import { text } from '../http/validate.ts';

/**
 * A user id (a workspace member, a ticket's assignee): 1-200 code points, not blank, no
 * surrounding whitespace and no control characters. One rule for the API and the admin CLI,
 * so that every member can be assigned.
 */
export function userId(label: string) {
  return text({ min: 1, max: 200, nonBlank: true, label }).check((ctx) => {
    const s = ctx.value;
    if (s.trim() === '') return;
    if (s !== s.trim()) ctx.issues.push({ code: 'custom', input: s, message: `${label} must not start or end with whitespace.` });
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f]/.test(s)) ctx.issues.push({ code: 'custom', input: s, message: `${label} must not contain control characters.` });
  });
}
