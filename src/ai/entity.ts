import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from '../workspaces/entity.ts';

/**
 * The AI owner's settings of a workspace (docs/ai.md, "Settings"); a workspace without a row has
 * the defaults (settings.ts). The model's API key is sealed (src/mail/secrets.ts), bound to the
 * workspace and the model's base URL, and never leaves the worker that calls the model.
 */
const AiSettingsSchema = defineEntity({
  name: 'AiSettings',
  tableName: 'ai_settings',
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().primary().deleteRule('cascade'),
    enabled: p.boolean().default(false),
    modelBaseUrl: p.text().nullable(),
    modelName: p.string().length(200).nullable(),
    modelApiKeySealed: p.text().nullable(),
    instructions: p.text().default(''),
    handoffTo: p.string().length(200).nullable(),
    minScore: p.double().default(0.3),
    maxRepliesPerTicket: p.integer().default(3),
    autoSend: p.boolean().default(true),
    senderName: p.string().length(200).default('AI assistant'),
    updatedAt: p.datetime(3).onCreate(() => new Date()),
  },
});
export class AiSettings extends AiSettingsSchema.class {}
AiSettingsSchema.setClass(AiSettings);
