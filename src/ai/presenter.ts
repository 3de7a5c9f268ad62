import { z } from 'zod';
import { DRAFT_STATES } from './entity.ts';
import type { OwnerSettings } from './settings.ts';

/** The owner's settings as answers show them: never the model's key, only whether one is kept. */
export const publicAiSettings = z
  .strictObject({
    enabled: z.boolean(),
    model: z
      .strictObject({
        baseUrl: z.string(),
        model: z.string(),
        apiKeySet: z.boolean().meta({ description: 'A key is kept (it is never answered).' }),
      })
      .nullable(),
    instructions: z.string(),
    handoffTo: z.string().nullable(),
    minScore: z.number(),
    maxRepliesPerTicket: z.number().int(),
    autoSend: z.boolean(),
    senderName: z.string(),
  })
  .meta({ id: 'AiSettings' });
export const aiSettingsEnvelope = z.strictObject({ ai: publicAiSettings });

export function presentSettings(s: OwnerSettings): z.output<typeof publicAiSettings> {
  return {
    enabled: s.enabled,
    model: s.model ? { baseUrl: s.model.baseUrl, model: s.model.model, apiKeySet: s.model.apiKeySet } : null,
    instructions: s.instructions,
    handoffTo: s.handoffTo,
    minScore: s.minScore,
    maxRepliesPerTicket: s.maxRepliesPerTicket,
    autoSend: s.autoSend,
    senderName: s.senderName,
  };
}

/** One thing the owner did about a customer message (GET /api/v1/tickets/:id/ai). */
export const publicTurn = z
  .strictObject({
    id: z.uuid(),
    at: z.iso.datetime({ precision: 3 }),
    action: z.enum(['reply', 'handoff', 'draft']),
    reason: z.string().nullable().meta({ description: 'Why it handed off.' }),
    citations: z.array(z.string()).meta({ description: 'The ids of the articles the reply or draft draws on.' }),
    messageId: z.uuid().nullable().meta({ description: 'The reply sent (a draft’s, once a person sent it).' }),
    answersMessageId: z.uuid().meta({ description: 'The customer message it answers.' }),
    model: z.string().nullable().meta({ description: 'The model that wrote it; null when the articles alone answered or a rule handed off.' }),
    draft: z
      .strictObject({
        body: z.string(),
        state: z.enum(DRAFT_STATES).meta({ description: '`waiting` for a person; `sent` (by the drafts route or an approval); `superseded` by a newer draft; `discarded`: its approval was rejected.' }),
        sentAt: z.iso.datetime({ precision: 3 }).nullable(),
        sentBy: z.string().nullable(),
        approvalId: z.uuid().nullable().meta({ description: 'The approval that asks a person about it (GET /api/approvals/:id); null when the workspace had nobody to ask.' }),
      })
      .nullable()
      .meta({ description: 'Of a draft (autoSend false): its text and what became of it.' }),
  })
  .meta({ id: 'AiTurn' });
export const turnList = z.strictObject({ turns: z.array(publicTurn).meta({ description: 'Oldest first.' }) });
export const turnEnvelope = z.strictObject({ turn: publicTurn });

export const dryRunView = z
  .strictObject({
    acts: z.boolean().meta({ description: 'Whether the owner would act on the ticket now (it is on, owns the ticket, and a customer message waits).' }),
    why: z.string().nullable().meta({ description: 'Why it would not act; what follows is then what it would do if it were on and owned the ticket.' }),
    action: z.enum(['reply', 'draft', 'handoff']).nullable(),
    body: z.string().nullable(),
    citations: z.array(z.string()),
    reason: z.string().nullable(),
    model: z.string().nullable(),
    articles: z.array(z.strictObject({ id: z.uuid(), title: z.string(), score: z.number() })).meta({ description: 'The articles found for the customer’s message, best first.' }),
  })
  .meta({ id: 'AiDryRun' });
export const dryRunEnvelope = z.strictObject({ dryRun: dryRunView });
