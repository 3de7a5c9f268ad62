import { describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { API_ACTOR, type Actor } from '../../../src/actor.ts';
import { MemberAssignees } from '../../../src/tickets/assignees.ts';
import { reopensOnCustomerReply, resolutionAfter } from '../../../src/tickets/policy.ts';
import { STATUSES, type ResolutionType, type TicketStatus } from '../../../src/tickets/values.ts';
import { Member } from '../../../src/workspaces/entity.ts';

// docs/contract.md §2/§3: the ticket rules the service applies, without a database.

const automation: Actor = { type: 'workflow', workflowId: 'wf-1', executionId: 'ex-1', chain: ['wf-1'] };

describe('resolutionType after a status change', () => {
  it.each<[string, TicketStatus, ResolutionType | null, string | null, Actor, ResolutionType | null]>([
    ['an agent solves it', 'solved', null, 'agent-1', API_ACTOR, 'resolved_by_agent'],
    ['an agent closes an unassigned one', 'closed', null, null, API_ACTOR, 'resolved_by_agent'],
    ['an automation solves it', 'solved', null, 'agent-1', automation, 'resolved_by_automation'],
    ['it is solved while the AI agent owns it', 'solved', null, 'ai', API_ACTOR, 'resolved_by_ai'],
    ['it is closed after being solved (the first resolution stays)', 'closed', 'resolved_by_ai', 'agent-1', automation, 'resolved_by_ai'],
    ['it moves back to open', 'open', 'resolved_by_agent', 'agent-1', API_ACTOR, null],
    ['it moves back to pending', 'pending', 'resolved_by_automation', null, automation, null],
    ['it is escalated', 'escalated', 'resolved_by_ai', 'ai', API_ACTOR, null],
  ])('%s', (_case, status, current, assignedTo, actor, expected) => {
    expect(resolutionAfter({ status, current, assignedTo, actor })).toBe(expected);
  });
});

describe('a customer reply', () => {
  it('reopens a pending or solved ticket and no other', () => {
    expect(STATUSES.filter(reopensOnCustomerReply)).toEqual(['pending', 'solved']);
  });
});

/** An entity manager that answers count(Member, …) from a list of workspace members, recording each query. */
function fakeMembers(members: Array<{ workspace: string; userId: string }>) {
  const queries: unknown[] = [];
  const em = {
    count: async (entity: unknown, where: { workspace: string; userId: string }) => {
      if (entity !== Member) throw new Error('only members are counted');
      queries.push(where);
      return members.filter((m) => m.workspace === where.workspace && m.userId === where.userId).length;
    },
  };
  return { em: em as unknown as EntityManager, queries };
}

describe('who may own a ticket', () => {
  it('the AI agent always, without asking the database', async () => {
    const { em, queries } = fakeMembers([]);
    expect(await new MemberAssignees(em).isAssignable('ws-1', 'ai')).toBe(true);
    expect(queries).toEqual([]);
  });

  it('a member of that exact workspace, and nobody else', async () => {
    const { em, queries } = fakeMembers([
      { workspace: 'ws-1', userId: 'agent-1' },
      { workspace: 'ws-2', userId: 'agent-2' },
    ]);
    const assignees = new MemberAssignees(em);
    const answers = await Promise.all(['agent-1', 'agent-2', 'ghost'].map((user) => assignees.isAssignable('ws-1', user)));
    expect(answers).toEqual([true, false, false]);
    expect(queries).toEqual(['agent-1', 'agent-2', 'ghost'].map((userId) => ({ workspace: 'ws-1', userId })));
  });
});
