import { z } from 'zod';
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
