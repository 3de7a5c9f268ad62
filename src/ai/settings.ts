import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AddressRefused, allowedAddress, UnresolvedHost } from '../common/outbound-address.ts';
import { sql } from '../common/sql.ts';
import { AppError, validationFailed } from '../errors.ts';
import type { SecretBox } from '../mail/secrets.ts';
import { AI_ASSIGNEE } from '../tickets/values.ts';
import { notAssignable } from '../tickets/assignees.ts';
import { Member } from '../workspaces/entity.ts';
import { AiSettings } from './entity.ts';
import type { UpdateAiSettingsInput } from './schema.ts';

/** The owner's settings as the rules and the run read them (a workspace without a row: the defaults). */
export type OwnerSettings = {
  enabled: boolean;
  model: { baseUrl: string; model: string; apiKeySet: boolean } | null;
  instructions: string;
  handoffTo: string | null;
  minScore: number;
  maxRepliesPerTicket: number;
  autoSend: boolean;
  senderName: string;
};

export const DEFAULT_SETTINGS: OwnerSettings = {
  enabled: false,
  model: null,
  instructions: '',
  handoffTo: null,
  minScore: 0.3,
  maxRepliesPerTicket: 3,
  autoSend: true,
  senderName: 'AI assistant',
};

/** What a sealed model key is bound to: the workspace and the server it was given for. */
export const apiKeyContext = (workspaceId: string, baseUrl: string) => `ai:${workspaceId}:model-api-key:${baseUrl}`;

export function settingsOf(row: AiSettings | null): OwnerSettings {
  if (!row) return { ...DEFAULT_SETTINGS };
  return {
    enabled: row.enabled,
    model: row.modelBaseUrl && row.modelName ? { baseUrl: row.modelBaseUrl, model: row.modelName, apiKeySet: row.modelApiKeySealed !== null } : null,
    instructions: row.instructions,
    handoffTo: row.handoffTo ?? null,
    minScore: Number(row.minScore),
    maxRepliesPerTicket: row.maxRepliesPerTicket,
    autoSend: row.autoSend,
    senderName: row.senderName,
  };
}

/** Called in the transaction that turned the owner on: it takes up the tickets already waiting for it (run/take-up.ts). */
export type OnTurnedOn = (em: EntityManager, workspaceId: string) => Promise<void>;

/** The AI owner's settings of a workspace (GET/PATCH /api/ai). */
export class AiSettingsService {
  private readonly em: EntityManager;
  private readonly secrets: (() => SecretBox) | undefined;
  private readonly httpAllow: string[];
  private readonly onTurnedOn: OnTurnedOn | undefined;

  constructor(em: EntityManager, deps: { secrets?: () => SecretBox; httpAllow?: string[]; onTurnedOn?: OnTurnedOn } = {}) {
    this.em = em;
    this.secrets = deps.secrets;
    this.httpAllow = deps.httpAllow ?? [];
    this.onTurnedOn = deps.onTurnedOn;
  }

  async get(workspaceId: string): Promise<OwnerSettings> {
    return settingsOf(await this.em.findOne(AiSettings, { workspace: workspaceId }));
  }

  /**
   * Applies the fields given, under the row's lock. A model's base URL is held to the rules of
   * outgoing requests (a 400 naming model.baseUrl); handoffTo must be a current member or admin
   * (403); a key given is sealed at once. Turning the owner on takes up, in the same
   * transaction, the tickets already assigned to it with an unanswered customer message.
   */
  async update(workspaceId: string, input: UpdateAiSettingsInput): Promise<OwnerSettings> {
    if (input.handoffTo) await this.checkHandoffTo(workspaceId, input.handoffTo);
    if (input.model) await this.checkBaseUrl(input.model.baseUrl);
    return this.em.transactional(async (em) => {
      await sql(em, 'insert into "ai_settings" ("workspace_id", "updated_at") values ($1, $2) on conflict ("workspace_id") do nothing', [workspaceId, new Date()]);
      const row = await em.findOneOrFail(AiSettings, { workspace: workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const wasEnabled = row.enabled;
      if (input.model === null) Object.assign(row, { modelBaseUrl: null, modelName: null, modelApiKeySealed: null });
      else if (input.model) {
        const sameServer = row.modelBaseUrl === input.model.baseUrl;
        let sealed = sameServer ? (row.modelApiKeySealed ?? null) : null;
        if (input.model.apiKey === null) sealed = null;
        else if (input.model.apiKey !== undefined) sealed = this.box().seal(input.model.apiKey, apiKeyContext(workspaceId, input.model.baseUrl));
        Object.assign(row, { modelBaseUrl: input.model.baseUrl, modelName: input.model.model, modelApiKeySealed: sealed });
      }
      if (input.enabled !== undefined) row.enabled = input.enabled;
      if (input.instructions !== undefined) row.instructions = input.instructions;
      if (input.handoffTo !== undefined) row.handoffTo = input.handoffTo;
      if (input.minScore !== undefined) row.minScore = input.minScore;
      if (input.maxRepliesPerTicket !== undefined) row.maxRepliesPerTicket = input.maxRepliesPerTicket;
      if (input.autoSend !== undefined) row.autoSend = input.autoSend;
      if (input.senderName !== undefined) row.senderName = input.senderName;
      row.updatedAt = new Date();
      await em.flush();
      if (row.enabled && !wasEnabled) await this.onTurnedOn?.(em, workspaceId);
      return settingsOf(row);
    });
  }

  private box(): SecretBox {
    if (!this.secrets) throw new AppError(503, 'unavailable', 'This process cannot seal secrets: it was started without the secret key (DESKFLOW_SECRET_KEY).');
    return this.secrets();
  }

  private async checkHandoffTo(workspaceId: string, handoffTo: string): Promise<void> {
    if (handoffTo === AI_ASSIGNEE) throw validationFailed([{ path: 'handoffTo', message: 'handoffTo must be a person: the owner hands tickets off to a member, not to itself.' }]);
    if ((await this.em.count(Member, { workspace: workspaceId, userId: handoffTo })) === 0) throw notAssignable(workspaceId, handoffTo);
  }

  /**
   * A host that resolves to an address outgoing requests may not reach is refused. One that does
   * not resolve now is taken: DNS may be away for a moment, and every call to the model checks
   * the address again (a failing call hands the ticket to a person, saying why).
   */
  private async checkBaseUrl(baseUrl: string): Promise<void> {
    try {
      await allowedAddress(new URL(baseUrl), this.httpAllow);
    } catch (err) {
      if (err instanceof AddressRefused) throw validationFailed([{ path: 'model.baseUrl', message: err.message }]);
      if (!(err instanceof UnresolvedHost)) throw err;
    }
  }
}
