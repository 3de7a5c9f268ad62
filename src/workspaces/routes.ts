import Router from '@koa/router';
import { z } from 'zod';
import { operation } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import { MEMBER_ROLES } from './entity.ts';

const memberList = z.strictObject({
  members: z
    .array(
      z
        .strictObject({
          userId: z.string().meta({ description: 'As tickets’ `assignedTo` and notes’ `authorId` name them.' }),
          role: z.enum(MEMBER_ROLES),
        })
        .meta({ id: 'Member' }),
    )
    .meta({ description: 'Ordered by user id.' }),
});

/** Mounted under /api/members, behind the API key (app.ts): who a client may offer as assignee or author. */
export function memberRoutes(): Router<AppState> {
  const router = new Router<AppState>();
  const list = operation({
    operationId: 'listMembers',
    summary: 'List the members of the workspace',
    description: 'The current members and admins of the API key’s workspace: who tickets can be assigned to, who may reply and write notes. Members are added and removed with the admin CLI.',
    tag: 'Members',
    responses: { 200: { description: 'The members, ordered by user id.', schema: memberList } },
  });
  router.get('/', list, async (ctx) => {
    const members = await ctx.state.services.workspaces.listMembers(ctx.state.workspaceId, { orderBy: 'userId' });
    ctx.body = { members: members.map((m) => ({ userId: m.userId, role: m.role })) };
  });
  return router;
}
