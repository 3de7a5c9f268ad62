import { z } from 'zod';

/**
 * The structured answer the owner asks a model for, and what makes one usable: valid JSON of this
 * shape, a non-empty body when it replies, and citations only of articles it was given. Pure.
 */
export const MODEL_ANSWER_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'body', 'citations', 'reason'],
  properties: {
    action: { type: 'string', enum: ['reply', 'handoff'], description: 'reply: answer the customer with body; handoff: give the ticket to a person.' },
    body: { type: 'string', description: 'The reply to the customer (plain text or markdown); empty when handing off.' },
    citations: { type: 'array', items: { type: 'string' }, description: 'The ids of the articles the reply draws on.' },
    reason: { type: 'string', description: 'Why you hand off (or, for a reply, a short note on why it answers).' },
  },
} as const;

const modelAnswer = z.object({
  action: z.enum(['reply', 'handoff']),
  body: z.string().max(20_000),
  citations: z.array(z.string()).max(20),
  reason: z.string().max(2_000),
});
export type ModelAnswer = z.infer<typeof modelAnswer>;

export type Judged = { ok: true; answer: ModelAnswer } | { ok: false; problem: string };

/** The model's text judged: usable (trimmed, citations kept once), or the problem to tell it when it is asked once more. */
export function judgeAnswer(text: string | null | undefined, givenArticleIds: readonly string[]): Judged {
  if (!text?.trim()) return { ok: false, problem: 'the answer was empty' };
  let raw: unknown;
  try {
    raw = JSON.parse(stripFence(text));
  } catch {
    return { ok: false, problem: 'the answer was not JSON' };
  }
  const parsed = modelAnswer.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `the answer did not have the asked shape (${issue.path.join('.') || 'answer'}: ${issue.message})` };
  }
  const answer = { ...parsed.data, body: parsed.data.body.trim(), reason: parsed.data.reason.trim(), citations: [...new Set(parsed.data.citations.map((id) => id.trim().toLowerCase()))] };
  if (answer.action === 'reply' && answer.body === '') return { ok: false, problem: 'the reply was empty' };
  const given = new Set(givenArticleIds.map((id) => id.toLowerCase()));
  const unknown = answer.citations.filter((id) => !given.has(id));
  if (unknown.length > 0) return { ok: false, problem: `it cited articles it was not given (${unknown.slice(0, 3).join(', ')})` };
  return { ok: true, answer };
}

/** Some servers wrap JSON in a markdown fence even when asked for JSON. */
function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return m ? m[1] : text;
}
