import { Migration20261123090646_initial } from '../../migrations/Migration20261123090646_initial.ts';
import { Migration20261123091542_workflows } from '../../migrations/Migration20261123091542_workflows.ts';
import { Migration20261123160000_workflow_counters } from '../../migrations/Migration20261123160000_workflow_counters.ts';
import { Migration20261123180000_reply_signals } from '../../migrations/Migration20261123180000_reply_signals.ts';
import { Migration20261123190000_api_key_notify } from '../../migrations/Migration20261123190000_api_key_notify.ts';
import { Migration20261123200000_ticket_counts } from '../../migrations/Migration20261123200000_ticket_counts.ts';
import { Migration20261123210000_idempotency_keys } from '../../migrations/Migration20261123210000_idempotency_keys.ts';
import { Migration20261123220000_outbox_backtest_index } from '../../migrations/Migration20261123220000_outbox_backtest_index.ts';
import { Migration20261124090000_execution_counts } from '../../migrations/Migration20261124090000_execution_counts.ts';
import { Migration20261124100000_outbox_retention } from '../../migrations/Migration20261124100000_outbox_retention.ts';
import { Migration20261124230000_step_outcomes } from '../../migrations/Migration20261124230000_step_outcomes.ts';
import { Migration20261124234240_mail } from '../../migrations/Migration20261124234240_mail.ts';
import { Migration20261125090000_calendars } from '../../migrations/Migration20261125090000_calendars.ts';
import { Migration20261125090000_ticket_executions_index } from '../../migrations/Migration20261125090000_ticket_executions_index.ts';
import { Migration20261125100000_step_until } from '../../migrations/Migration20261125100000_step_until.ts';
import { Migration20261125120000_execution_retention } from '../../migrations/Migration20261125120000_execution_retention.ts';
import { Migration20261125130000_api_key_usage } from '../../migrations/Migration20261125130000_api_key_usage.ts';
import { Migration20261127090000_outbox_notify_after_commit } from '../../migrations/Migration20261127090000_outbox_notify_after_commit.ts';
import { Migration20261128100000_notes_and_event_types } from '../../migrations/Migration20261128100000_notes_and_event_types.ts';
import { Migration20261128100100_ticket_list_filters } from '../../migrations/Migration20261128100100_ticket_list_filters.ts';
import { Migration20261128100200_ticket_search } from '../../migrations/Migration20261128100200_ticket_search.ts';
import { Migration20261128110000_outbox_feed_cursor } from '../../migrations/Migration20261128110000_outbox_feed_cursor.ts';
import { Migration20261128120000_sla_policies } from '../../migrations/Migration20261128120000_sla_policies.ts';
import { Migration20261128121000_sla_clocks } from '../../migrations/Migration20261128121000_sla_clocks.ts';
import { Migration20261128122000_sla_triggers } from '../../migrations/Migration20261128122000_sla_triggers.ts';
import { Migration20261128130000_approvals } from '../../migrations/Migration20261128130000_approvals.ts';
import { Migration20261128140000_knowledge } from '../../migrations/Migration20261128140000_knowledge.ts';
import { Migration20261128141000_ai_settings } from '../../migrations/Migration20261128141000_ai_settings.ts';
import { Migration20261128142000_ai_runs } from '../../migrations/Migration20261128142000_ai_runs.ts';
import { Migration20261128150000_ai_draft_approvals } from '../../migrations/Migration20261128150000_ai_draft_approvals.ts';

/**
 * Migrations in the order they apply. Listed explicitly so that the running service never
 * depends on a directory scan; add each file `npm run migration:create` writes to this list.
 */
export const migrationsList = [Migration20261123090646_initial, Migration20261123091542_workflows, Migration20261123160000_workflow_counters, Migration20261123180000_reply_signals, Migration20261123190000_api_key_notify, Migration20261123200000_ticket_counts, Migration20261123210000_idempotency_keys, Migration20261123220000_outbox_backtest_index, Migration20261124090000_execution_counts, Migration20261124100000_outbox_retention, Migration20261124230000_step_outcomes, Migration20261124234240_mail, Migration20261125090000_calendars, Migration20261125090000_ticket_executions_index, Migration20261125100000_step_until, Migration20261125120000_execution_retention, Migration20261125130000_api_key_usage, Migration20261127090000_outbox_notify_after_commit, Migration20261128100000_notes_and_event_types, Migration20261128100100_ticket_list_filters, Migration20261128100200_ticket_search, Migration20261128110000_outbox_feed_cursor, Migration20261128120000_sla_policies, Migration20261128121000_sla_clocks, Migration20261128122000_sla_triggers, Migration20261128130000_approvals, Migration20261128140000_knowledge, Migration20261128141000_ai_settings, Migration20261128142000_ai_runs, Migration20261128150000_ai_draft_approvals];
