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

export const TURN_ACTIONS = ['reply', 'handoff', 'draft'] as const;
export type TurnAction = (typeof TURN_ACTIONS)[number];
export const DRAFT_STATES = ['waiting', 'sent', 'superseded', 'discarded'] as const;
export type DraftState = (typeof DRAFT_STATES)[number];

/**
 * What the owner did about one customer message of a ticket: replied (the reply's message), kept
 * a draft for a person to send, or handed the ticket off (with the reason). One per message: the
 * run's activity that writes it is retried safely, and a second wake-up for the same message
 * finds it handled.
 */
const AiTurnSchema = defineEntity({
  name: 'AiTurn',
  tableName: 'ai_turns',
  properties: {
    id: p.uuid().primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    ticketId: p.uuid(),
    /** The customer message it answers. */
    answersMessageId: p.uuid(),
    action: p.enum(TURN_ACTIONS),
    reason: p.text().nullable(),
    citations: p.array<string>().default([]),
    /** The reply sent (a draft's once a person sent it). */
    messageId: p.uuid().nullable(),
    /** The model that wrote it; null when the articles alone answered or a rule handed off. */
    model: p.string().length(200).nullable(),
    /** A draft's text, and what became of it. */
    body: p.text().nullable(),
    draftState: p.enum(DRAFT_STATES).nullable(),
    sentAt: p.datetime(3).nullable(),
    sentBy: p.string().length(200).nullable(),
    createdAt: p.datetime(3),
  },
  uniques: [{ name: 'ai_turns_ticket_message_unique', properties: ['ticketId', 'answersMessageId'] }],
  indexes: [{ name: 'ai_turns_ticket_created_idx', properties: ['ticketId', 'createdAt'] }],
});
export class AiTurn extends AiTurnSchema.class {}
AiTurnSchema.setClass(AiTurn);

/**
 * A wake-up (or a stop) for a ticket's owner run, recorded with the change that calls for it (in
 * the relay's delivery transaction, or when the owner is turned on) and kept until Temporal has
 * acknowledged it (src/common/retry-until-acknowledged.ts).
 */
const AiWakeupSchema = defineEntity({
  name: 'AiWakeup',
  tableName: 'ai_wakeups',
  properties: {
    id: p.uuid().primary(),
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    ticketId: p.uuid(),
    kind: p.enum(['wake', 'stop'] as const),
    reason: p.text(),
    createdAt: p.datetime(3),
    deliveredAt: p.datetime(3).nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
  indexes: [
    {
      name: 'ai_wakeups_undelivered_idx',
      expression: 'create index "ai_wakeups_undelivered_idx" on "ai_wakeups" ("created_at") where "delivered_at" is null',
    },
  ],
});
export class AiWakeup extends AiWakeupSchema.class {}
AiWakeupSchema.setClass(AiWakeup);
