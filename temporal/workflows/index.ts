// The workflows the worker registers. Bundled for the Temporal sandbox: no Node built-ins,
// no I/O, relative imports only (see test/unit/architecture.test.ts).
export { runAutomation } from './run-automation.ts';
export { runGraph } from './run-graph.ts';
export { scheduledTick } from './scheduled-tick.ts';
export { deliverMail } from './mail-delivery.ts';
export { slaClocks } from './sla-clocks.ts';
export { aiOwner } from './ai-owner.ts';
