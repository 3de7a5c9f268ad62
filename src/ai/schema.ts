import { z } from 'zod';
import { nullableText, text } from '../http/validate.ts';
import { userId } from '../workspaces/user-id.ts';

export const MAX_REPLIES_LIMIT = 50;

const baseUrl = text({ min: 1, max: 2000, nonBlank: true, label: 'model.baseUrl' })
  .check((ctx) => {
    let url: URL;
    try {
      url = new URL(ctx.value);
    } catch {
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'model.baseUrl must be an http or https URL such as https://api.openai.com/v1.' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.issues.push({ code: 'custom', input: ctx.value, message: 'model.baseUrl must be an http or https URL such as https://api.openai.com/v1.' });
    else if (url.username || url.password) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'model.baseUrl must not carry credentials: give the key as model.apiKey.' });
  })
  .meta({ description: 'The OpenAI-compatible API, up to its `/v1`: `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), …', example: 'https://api.openai.com/v1' });

const model = z
  .strictObject(
    {
      baseUrl,
      model: text({ min: 1, max: 200, nonBlank: true, label: 'model.model' }).meta({ example: 'gpt-4o-mini' }),
      apiKey: nullableText({ max: 1000, label: 'model.apiKey' })
        .optional()
        .meta({
          description:
            'Write-only: sealed at rest, never answered nor logged. Left out, the key kept stays while `baseUrl` stays the same, and is dropped when `baseUrl` changes (a key is never sent to another server than the one it was given for); null drops it.',
        }),
    },
    { error: () => 'model must be an object { baseUrl, model, apiKey } or null.' },
  )
  .nullable()
  .meta({ description: 'An OpenAI-compatible chat-completions API; null: answer from the articles alone.' });

export const updateAiSettingsBody = z
  .strictObject({
    enabled: z.boolean({ error: () => 'enabled must be true or false.' }).optional(),
    model: model.optional(),
    instructions: text({ max: 20_000, label: 'instructions' }).optional().meta({ description: 'What the model is told before the articles and the conversation (tone, what not to promise).' }),
    handoffTo: userId('handoffTo').nullable().optional().meta({ description: 'A current member or admin of the workspace (else 403) who gets the tickets the owner hands off; null: they are left unassigned and escalated.' }),
    minScore: z.number({ error: () => 'minScore must be a number from 0 to 1.' }).min(0, 'minScore must be a number from 0 to 1.').max(1, 'minScore must be a number from 0 to 1.').optional().meta({ description: 'Without a model, the best article answers only when its search score reaches this.' }),
    maxRepliesPerTicket: z
      .number({ error: () => `maxRepliesPerTicket must be an integer from 0 to ${MAX_REPLIES_LIMIT}.` })
      .int(`maxRepliesPerTicket must be an integer from 0 to ${MAX_REPLIES_LIMIT}.`)
      .min(0, `maxRepliesPerTicket must be an integer from 0 to ${MAX_REPLIES_LIMIT}.`)
      .max(MAX_REPLIES_LIMIT, `maxRepliesPerTicket must be an integer from 0 to ${MAX_REPLIES_LIMIT}.`)
      .optional(),
    autoSend: z.boolean({ error: () => 'autoSend must be true or false.' }).optional().meta({ description: 'false: each reply waits as a draft until a person sends it.' }),
    senderName: text({ min: 1, max: 200, nonBlank: true, label: 'senderName' }).optional().meta({ description: 'The name customers see on the owner’s replies.' }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'Give at least one of enabled, model, instructions, handoffTo, minScore, maxRepliesPerTicket, autoSend, senderName.',
  });
export type UpdateAiSettingsInput = z.infer<typeof updateAiSettingsBody>;
