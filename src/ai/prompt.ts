import type { FoundArticle } from './rules.ts';

/**
 * What the model is sent: the owner's fixed rules and the workspace's instructions, the articles
 * found, and the conversation, oldest first (customer messages as the user's, the desk's
 * replies as the assistant's). Long articles and messages are cut so that a conversation of any
 * length fits a model's context. Pure.
 */
export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };
export type ConversationMessage = { direction: 'inbound' | 'outbound'; body: string };

const MAX_ARTICLE_CHARS = 6_000;
const MAX_MESSAGE_CHARS = 4_000;
const MAX_MESSAGES = 20;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

export function buildPrompt(input: {
  instructions: string;
  articles: FoundArticle[];
  conversation: ConversationMessage[];
  subject: string;
  language: string | null;
  /** What was wrong with the model's previous answer, when it is asked once more. */
  retryBecause?: string;
}): ChatMessage[] {
  const rules = [
    'You answer customers of a support desk, using only the knowledge articles below.',
    'Answer with a JSON object { "action", "body", "citations", "reason" } and nothing else.',
    '- action "reply": body is your answer to the customer\'s last message, citations lists the ids of the articles it draws on.',
    '- action "handoff": a person should take over (the articles do not answer the question, the customer is upset, or asks for something only a person can do); reason says why, body is empty.',
    'Never invent facts, prices, promises or links that are not in the articles. Cite only ids listed below.',
    input.language ? `Write in the customer's language (${input.language}).` : "Write in the customer's language.",
  ].join('\n');
  const articles = input.articles.length
    ? input.articles.map((a) => `<article id="${a.id}">\n# ${a.title}\n${cut(a.body, MAX_ARTICLE_CHARS)}\n</article>`).join('\n')
    : '(no article matched: hand off unless the instructions answer it)';
  const system = [rules, input.instructions.trim() ? `Instructions of this desk:\n${input.instructions.trim()}` : '', `Knowledge articles:\n${articles}`, `Ticket subject: ${input.subject}`]
    .filter(Boolean)
    .join('\n\n');
  const conversation: ChatMessage[] = input.conversation.slice(-MAX_MESSAGES).map((m) => ({ role: m.direction === 'inbound' ? 'user' : 'assistant', content: cut(m.body, MAX_MESSAGE_CHARS) }));
  const retry: ChatMessage[] = input.retryBecause
    ? [{ role: 'system', content: `Your previous answer could not be used: ${input.retryBecause}. Answer again with the JSON object only.` }]
    : [];
  return [{ role: 'system', content: system }, ...conversation, ...retry];
}
