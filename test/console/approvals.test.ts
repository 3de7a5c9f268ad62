// Approvals in the console, in Debian's Chromium against the real API, database and Temporal:
// an operator adds a request_approval to a workflow with its approvers picked from the
// workspace's members; a run asks; the approver finds it first on the Approvals page (question,
// ticket, the workflow that asked and when, time left), approves with a comment as themselves,
// and the run goes on down its true branch; the run view says who decided what.
import { describe, expect, it } from 'vitest';
import { addFromPalette, axeViolations, closeChecked, go, node, openConsole, runStatuses, screenshotForDocs, texts, UI_TIMEOUT_MS, useChromium, valueOf, waitForText } from '../helpers/browser.ts';
import { engineWorkspace, useEngineApp } from '../helpers/engine.ts';
import { activateWorkflow, approvalAsked, createWorkflow, finishedExecutions, getTicket, openTicket, triggerWorkflow } from '../helpers/api.ts';
import { refundApproval, triggerNode } from '../helpers/graphs.ts';
import { eventually } from '../helpers/poll.ts';
import { addArticle, PASSWORD_ARTICLE, setOwner, ticketForAi, turnsAfter } from '../helpers/ai.ts';

const app = useEngineApp({ feed: true });
const chromium = useChromium();
const TEST_MS = 4 * UI_TIMEOUT_MS;
const PEOPLE = [{ userId: 'dana' }, { userId: 'lee', role: 'admin' as const }, { userId: 'kim' }];

describe('approvals in the console', () => {
  it('asks the members picked in the node\'s form', async () => {
    const { ws, api } = await engineWorkspace(app, PEOPLE);
    const workflow = await createWorkflow(api, { name: 'Refunds over 100 EUR', triggerType: 'manual', workflowJson: { nodes: [triggerNode('manual', 'trigger')], edges: [] } });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflow.id}`);
    await page.waitForSelector(node('trigger'));
    await addFromPalette(page, 'trigger', 'action:request_approval', 'request-approval');

    // The members to pick from, as the workspace has them.
    await page.waitForSelector('.node-form input[name="approvers"][value="kim"]');
    expect(await texts(page, '.node-form .member-picker label')).toEqual(['dana', 'kim', 'leeadmin']);
    await page.click('.node-form input[name="approvers"][value="lee"]');
    await page.click('.node-form input[name="approvers"][value="dana"]');
    await page.type('.node-form textarea[name="question"]', 'Refund {{data.amount}} EUR?');
    await page.select('.node-form select[name="quorum"]', 'all');
    await waitForText(page, `${node('request-approval')} .wf-node-summary`, 'approvers: lee, dana');
    await page.click('button[data-action=save]');
    await waitForText(page, '.banner.ok', 'Saved: version 2');

    const saved = (await api.get(`/api/workflows/${workflow.id}`)).body.workflow.workflowJson.nodes[1].data;
    expect(saved).toEqual({ actionType: 'request_approval', approvers: ['lee', 'dana'], question: 'Refund {{data.amount}} EUR?', quorum: 'all' });
    expect(await valueOf(page, '.node-form select[name="quorum"]')).toBe('all');
    await closeChecked(page);
  }, TEST_MS);

  it('lists what a run asks, pending first; the approver approves with a comment and the run goes on down true; the run view says who decided what', async () => {
    const { ws, api } = await engineWorkspace(app, PEOPLE);
    const workflowId = await activateWorkflow(api, refundApproval(['dana', 'lee'], { timeoutSeconds: 7200 }, 'Refunds over 100 EUR'));
    const ticketId = await openTicket(api, { subject: 'Charged twice for March' });
    const execution = await triggerWorkflow(api, workflowId, { ticketId, data: { amount: 240 } });
    const asked = await approvalAsked(api, workflowId, 'ask');

    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/approvals');
    const card = `[data-testid=pending-approvals] [data-approval-id="${asked.id}"]`;
    await page.waitForSelector(card);
    await page.waitForSelector('[data-feed=live]');
    expect(await texts(page, `${card} .question`)).toEqual(['Refund 240 EUR on "Charged twice for March"?']);
    await waitForText(page, card, 'Charged twice for March');
    expect(await texts(page, `${card} [data-testid=asked-by]`)).toEqual(['Refunds over 100 EUR']);
    expect((await texts(page, `${card} [data-testid=time-left]`))[0]).toMatch(/^1 h 59 min left$|^2 h left$/);

    // Nobody chosen yet, then someone not asked: the buttons say why they cannot be used.
    expect(await texts(page, `${card} [data-testid=cannot-decide]`)).toEqual(['Choose who you decide as.']);
    await page.select('select[name=actingAs]', 'kim');
    await waitForText(page, `${card} [data-testid=cannot-decide]`, 'kim is not among its approvers.');
    expect(await page.$eval(`${card} button[data-action=approve]`, (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(true);

    await page.select('select[name=actingAs]', 'lee');
    await page.type(`${card} textarea[name=comment]`, 'Double charge confirmed.');
    expect(await axeViolations(page)).toEqual([]);
    await screenshotForDocs(page, 'console-approvals.png', { fullPage: true });
    await page.click(`${card} button[data-action=approve]`);
    await waitForText(page, '.banner.ok', 'Approved as lee: the run goes on down its true branch.');
    await page.waitForSelector(`[data-testid=decided-approvals] tr[data-approval-id="${asked.id}"][data-status=approved]`);
    await page.waitForSelector('[data-testid=no-pending]');

    const [done] = await finishedExecutions(api, workflowId);
    expect(done.status).toBe('completed');
    expect((await getTicket(api, ticketId)).tags).toEqual(['refund-approved']);

    // The run view: who decided what, beside the node; the branch followed.
    await go(page, `#/workflows/${workflowId}/runs/${execution.id}`);
    await page.waitForSelector('.run-view [data-node-id="approved"][data-run-status="completed"]');
    await page.waitForSelector('[data-step="ask"] .step-approval[data-approval-status=approved]');
    expect(await texts(page, '[data-step="ask"] [data-testid=decisions] li strong')).toEqual(['lee']);
    await waitForText(page, '[data-step="ask"] [data-testid=decisions]', 'Double charge confirmed.');
    expect(await runStatuses(page)).toMatchObject({ start: 'passed', ask: 'completed', approved: 'completed', refused: 'not_reached' });
    await waitForText(page, `${node('ask')} .wf-node-run`, 'approved by lee');
    expect(await axeViolations(page)).toEqual([]);
    await closeChecked(page);
  }, TEST_MS);

  it('dry-runs the rejected branch when asked to', async () => {
    const { ws, api } = await engineWorkspace(app, PEOPLE);
    const workflow = await createWorkflow(api, refundApproval(['kim']));
    const ticketId = await openTicket(api, { subject: 'Refund for a broken kettle' });
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, `#/workflows/${workflow.id}`);
    await page.waitForSelector(node('ask'));
    await page.click('[data-tab=try]');
    await page.waitForSelector(`select[name=ticketId] option[value="${ticketId}"]`);
    await page.select('select[name=ticketId]', ticketId);
    await page.waitForSelector('select[name=approvals]');
    await page.select('select[name=approvals]', 'reject');
    await page.click('button[data-action=dry-run]');
    await eventually(async () => ((await runStatuses(page)).refused === 'completed' ? true : undefined), 10_000, 'the dry run painted');
    expect(await runStatuses(page)).toMatchObject({ ask: 'completed', refused: 'completed', approved: 'not_reached' });
    await closeChecked(page);
  }, TEST_MS);

  it('holds the AI owner’s draft replies too: approving one sends it', async () => {
    const { ws, api } = await engineWorkspace(app, PEOPLE);
    await addArticle(api, PASSWORD_ARTICLE);
    await setOwner(api, { enabled: true, autoSend: false, handoffTo: 'dana' });
    const ticketId = await ticketForAi(api, 'How do I reset my password?');
    const [turn] = await turnsAfter(api, ticketId, 1);
    const page = await openConsole(chromium.browser, app.baseUrl, ws.key, '#/approvals');
    const card = `[data-testid=pending-approvals] [data-approval-id="${turn.draft.approvalId}"]`;
    await page.waitForSelector(card);
    expect(await texts(page, `${card} .question`)).toEqual([`Send this reply to Casey Customer <customer@example.com> on "Help"?\n\n${PASSWORD_ARTICLE.body}`]);
    expect(await texts(page, `${card} [data-testid=asked-by]`)).toEqual(['the AI owner (a draft reply)']);
    await page.select('select[name=actingAs]', 'dana');
    await page.click(`${card} button[data-action=approve]`);
    await waitForText(page, '.banner.ok', 'Approved as dana: the AI owner\'s reply is sent.');
    expect((await getTicket(api, ticketId)).status).toBe('pending');
    await closeChecked(page);
  }, TEST_MS);
});
