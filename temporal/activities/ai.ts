import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { ModelRefused } from '../../src/ai/model.ts';
import { AiOwner } from '../../src/ai/owner.ts';
import type { Logger } from '../../src/logger.ts';
import type { MailDeliveryStarter } from '../../src/mail/outbound.ts';
import type { SecretBox } from '../../src/mail/secrets.ts';
import { nonRetryable } from './broken-rule.ts';
import type { AiActivities } from './types.ts';

export type AiActivityDeps = { orm: MikroORM; logger: Logger; secrets: () => SecretBox; httpAllow: string[]; mailDelivery?: MailDeliveryStarter };

/**
 * The activities of the AI owner's run (src/ai/owner.ts): looking at the ticket and writing what
 * it decided are short database work (local activities, retried while the database is away); the
 * model call is a regular activity whose refusals (a wrong key, an unknown model, an address not
 * allowed) are non-retryable, everything else retried within the run's budget.
 */
export function createAiActivities(deps: AiActivityDeps): AiActivities {
  const owner = new AiOwner({ ...deps, fork: () => deps.orm.em.fork() });
  return {
    // A ticket that is gone (a 4xx) ends the run instead of being retried for ever.
    async aiLook(input) {
      const { found: _bodies, ...look } = await nonRetryable(() => owner.look(input.workspaceId, input.ticketId));
      return look;
    },
    async aiAskModel(input) {
      try {
        return await nonRetryable(() => owner.ask(input));
      } catch (err) {
        if (err instanceof ModelRefused) throw ApplicationFailure.nonRetryable(err.message, 'ModelRefused');
        throw err;
      }
    },
    async aiAct(input) {
      return nonRetryable(() => owner.act(input));
    },
  };
}
