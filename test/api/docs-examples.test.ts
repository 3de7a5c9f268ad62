import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createWorkspace, useTestApp } from '../helpers/app.ts';
import { repoRoot } from '../cli/run-cli.ts';
import { addOpenTime, businessSchedule } from '../../src/graph/index.ts';
import { useClockRelay } from '../helpers/sla.ts';

/**
 * The examples of the docs, run as a reader runs them: their shell blocks in order, in one bash,
 * against a real server. The set-up and the tickets are the API guide's, the automations the
 * tutorial's, the service levels' example docs/sla.md's.
 */
const PAGES = ['docs/api.md', 'docs/automations-tutorial.md', 'docs/sla.md', 'docs/ai.md'];
const blocks = PAGES.flatMap((page) => [...fs.readFileSync(path.join(repoRoot, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!));
const block = (what: string, test: (text: string) => boolean) => {
  const found = blocks.find(test);
  if (!found) throw new Error(`${PAGES.join(' and ')} have no shell block for ${what}`);
  return found;
};

const app = useTestApp();
// The outbox relay keeps the service-level clocks of the workspaces that ask for it (as a worker does).
const relay = useClockRelay(app);

/** The set-up and a ticket, then `steps`, in one bash with a new workspace's key; its standard output. */
async function runAsReader(steps: string[], opts: { members?: Array<{ userId: string }>; clocks?: boolean } = {}): Promise<string> {
  const { key, workspaceId } = await createWorkspace(app.orm, opts.members ?? []);
  if (opts.clocks) relay.workspaceIds.add(workspaceId);
  const script = [
    block('the set-up', (b) => b.includes('export DESKFLOW_KEY=')),
    // What the reader pastes into the set-up: their key, and here the test server's address.
    `DESKFLOW_KEY='${key}'`,
    `BASE='${app.baseUrl}'`,
    block('a ticket', (b) => b.startsWith('TICKET=$(')),
    ...steps,
  ].join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: repoRoot, timeout: 60_000 });
  return stdout;
}

/** `steps` as runAsReader runs them, then the id the shell variable `name` holds, which must be a UUID. */
async function runKeeping(name: string, steps: string[]): Promise<{ stdout: string; id: string }> {
  const stdout = await runAsReader([...steps, `echo; echo "${name}=$${name}"`]);
  const id = new RegExp(`^${name}=(\\S+)$`, 'm').exec(stdout)?.[1];
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return { stdout, id: id! };
}

/** The JSON documents a run printed, one a line (curl -s prints each answer on a line of its own when followed by `echo`). */
const answers = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

describe('the examples of the docs', () => {
  it('filters, search, tags, members and notes of the API guide run as written', async () => {
    const withEcho = (text: string) => text.trim().split('\n').reduce<string[]>((lines, line) => {
      // Each curl's answer on a line of its own.
      lines.push(line);
      if ((line.startsWith('curl ') || line.startsWith('  -d ')) && !line.endsWith('\\')) lines.push('echo');
      return lines;
    }, []).join('\n');
    const stdout = await runAsReader(
      [
        block('tagging', (b) => b.includes('/tags" -H')),
        block('the filters', (b) => b.includes('priority=high&priority=urgent')),
        block('the customer and tag filter', (b) => b.includes('customer_email=Casey@Example.com')),
        block('the search', (b) => b.includes('--data-urlencode')),
        block('the members', (b) => b.startsWith('curl -s "$BASE/api/members"')),
        block('the notes', (b) => b.startsWith('AGENT=')),
        block('untagging', (b) => b.includes('-X DELETE "$BASE/api/v1/tickets/$TICKET/tags/')),
      ].map(withEcho),
      { members: [{ userId: 'casey-agent' }] },
    );
    const [tagged, filtered, byCustomer, found, members, note, notes, untagged] = answers(stdout);
    expect(tagged.data.tags).toEqual(['hardware']);
    expect(filtered).toEqual({ data: [], pagination: { page: 1, perPage: 20, total: 0 } });
    expect(byCustomer.data.map((t: { subject: string }) => t.subject)).toEqual(['Printer on fire']);
    expect(found.data.map((t: { subject: string }) => t.subject)).toEqual(['Printer on fire']);
    expect(found.pagination).toEqual({ page: 1, perPage: 5, total: 1 });
    expect(members).toEqual({ members: [{ userId: 'casey-agent', role: 'member' }] });
    expect(note.data).toMatchObject({ authorId: 'casey-agent', body: 'Customer is on the Pro plan: call before closing.' });
    expect(notes.data).toEqual([note.data]);
    expect(untagged.data.tags).toEqual([]);
  });

  it('the Node.js webhook sender runs as written after the shell steps', async () => {
    const { stdout, id: ticket } = await runKeeping('TICKET', [
      block('the webhook workflow', (b) => b.startsWith('HOOK=$(')),
      block('the Node.js sender', (b) => b.includes('node --input-type=module')),
    ]);
    // The signed request was accepted and names the ticket the shell steps created.
    expect(stdout).toMatch(/202 \{\s+execution: \{/);
    expect(stdout).toContain(`ticketId: '${ticket}'`);
    expect(stdout).toContain("triggeredBy: 'webhook'");
  });

  it('the live events watch a change as it happens, then resume after the last id with the change missed', async () => {
    const { stdout, id: ticket } = await runKeeping('TICKET', [
      block('watching the events', (b) => b.includes('EVENTS=$(curl -sN --max-time')),
      block('resuming after the last id', (b) => b.startsWith('LAST_ID=$(')),
    ]);
    const events = [...stdout.matchAll(/^id: (\S+)\nevent: (\S+)\ndata: (.+)$/gm)].map(([, id, event, data]) => ({ id, event, data: JSON.parse(data) }));
    // The watch saw the update it waited for, then the resumed stream the one made while nobody watched.
    expect(events.map((e) => [e.event, e.data.ticketId, e.data.ticket.priority, e.data.ticket.status])).toEqual([
      ['ticket.updated', ticket, 'urgent', 'open'],
      ['ticket.updated', ticket, 'urgent', 'pending'],
    ]);
  });

  it('"Remind, then close" creates its calendar, then an active workflow that counts its open hours, as written', async () => {
    const { stdout, id: calendarId } = await runKeeping('CALENDAR', [
      block('the business-hours calendar', (b) => b.startsWith('CALENDAR=$(')),
      block('remind, then close', (b) => b.startsWith('REMIND=$(')),
    ]);
    const workflow = JSON.parse(stdout.split('\n').find((line) => line.startsWith('{"workflow"'))!).workflow;
    expect(workflow).toMatchObject({ name: 'Remind, then close', isActive: true });
    const waits = workflow.workflowJson.nodes.filter((n: { data: { calendarId?: string } }) => n.data.calendarId !== undefined);
    expect(waits.map((n: { id: string; data: Record<string, unknown> }) => [n.id, n.data.calendarId])).toEqual([
      ['wait-2-days', calendarId],
      ['reply-in-5-days', calendarId],
    ]);
  });

  it('the dry run and the backtest run as written after the shell steps', async () => {
    const stdout = await runAsReader([
      // The ticket becomes pending: a ticket_updated event for the backtest to find.
      block('an update', (b) => b.startsWith('curl -s -X PATCH "$BASE/api/v1/tickets/$TICKET"')),
      'echo',
      block('the dry run and the backtest', (b) => b.startsWith('CLOSER=$(')),
    ]);
    const dryRun = JSON.parse(stdout.split('\n').find((line) => line.startsWith('{"dryRun"'))!).dryRun;
    expect(dryRun.steps.map((s: { nodeId: string }) => s.nodeId)).toEqual(['updated', 'to-pending', 'close', 'tell']);
    expect(dryRun.changes.status).toEqual({ from: 'pending', to: 'closed' });
    expect(dryRun.outbound).toEqual([
      { nodeId: 'tell', type: 'send_reply', to: 'casey@example.com', subject: expect.stringMatching(/^Re: Printer on fire \[Ticket#[0-9a-f]{10}\]$/), delivery: 'not_configured', body: 'Hi Casey, we closed "Printer on fire".' },
    ]);
    expect(stdout).toContain('1 of 1 updates would have acted: {"set_status":1,"send_reply":1}');
  });

  it('"Urgent tickets within the open hour" (docs/sla.md) runs as written: the policy, the escalation, the clocks, the queue and the backtest', async () => {
    const stdout = await runAsReader(
      [
        block('the office hours', (b) => b.startsWith('CALENDAR=$(') && b.includes('Office hours')),
        block('the policy', (b) => b.startsWith('POLICY=$(')),
        block('the escalation', (b) => b.startsWith('ESCALATE=$(')),
        block('the urgent ticket and its clocks', (b) => b.includes('/sla"') && b.includes('"priority":"urgent"')),
        block('the backtest', (b) => b.includes('/api/sla-policies/backtest')),
      ],
      { clocks: true },
    );
    const lines = stdout.split('\n');
    const json = (prefix: string) => JSON.parse(lines.find((line) => line.startsWith(prefix))!);
    expect(lines.filter((line) => line.startsWith('{"workflow"')).map((line) => JSON.parse(line).workflow).map((w: { triggerType: string; isActive: boolean }) => [w.triggerType, w.isActive])).toEqual([
      ['sla_breached', true],
      ['sla_warning', true],
    ]);
    const { sla } = json('{"sla"');
    expect(sla.policyName).toBe('Urgent within the open hour');
    const [first, resolution] = sla.targets;
    expect([first.metric, first.status, resolution.metric, resolution.status]).toEqual(['first_reply', 'active', 'resolution', 'active']);
    // One open hour of the office (Berlin, 9-17 on weekdays) after the ticket came in; the warning 15 minutes before.
    const office = businessSchedule({ timeZone: 'Europe/Berlin', hours: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day: day as 'mon', from: '09:00', to: '17:00' })), holidays: [] });
    const came = Date.parse(first.startedAt);
    expect(first.dueAt).toBe(new Date(addOpenTime(office, came, 3_600_000)).toISOString());
    expect(first.warnAt).toBe(new Date(addOpenTime(office, came, 2_700_000)).toISOString());
    expect(json('{"data"').data).toEqual([expect.objectContaining({ metric: 'first_reply', priority: 'urgent', dueAt: first.dueAt, targetStatus: 'active' })]);
    expect(json('{"tickets"')).toEqual({
      tickets: 1,
      targets: [
        { metric: 'first_reply', priority: 'urgent', met: 0, breached: 0, running: 1, attainment: null },
        { metric: 'resolution', priority: 'urgent', met: 0, breached: 0, running: 1, attainment: null },
      ],
    });
  });

  it('the AI owner’s knowledge and settings run as written, and its dry run answers the ticket from the article', async () => {
    const { stdout, id: article } = await runKeeping('ARTICLE', [
      block('an article', (b) => b.startsWith('ARTICLE=$(')),
      'echo',
      block('the knowledge search', (b) => b.startsWith('curl -s "$BASE/api/knowledge/search')),
      'echo',
      block('the settings', (b) => b.startsWith('curl -s -X PATCH "$BASE/api/ai"')),
      'echo',
      block('the dry run', (b) => b.startsWith('curl -s -X POST "$BASE/api/v1/tickets/$TICKET/ai/dry-run"')),
    ]);
    const json = (prefix: string) => JSON.parse(stdout.split('\n').find((line) => line.startsWith(prefix))!);
    expect(json('{"results"').results[0]).toMatchObject({ article: { id: article, title: 'Printer smoking or on fire' } });
    expect(json('{"ai"').ai).toMatchObject({ enabled: true, minScore: 0.3, maxRepliesPerTicket: 3, senderName: 'Deskflow assistant', model: null });
    // The guide's ticket is not assigned to ai: the dry run says so, and what it would reply.
    expect(json('{"dryRun"').dryRun).toMatchObject({ acts: false, why: 'The ticket is not assigned to ai.', action: 'reply', citations: [article] });
  });
});
