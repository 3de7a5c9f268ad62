import { Migration } from '@mikro-orm/migrations';

/**
 * Acting on service levels: the trigger types sla_warning and sla_breached (workflows, their
 * versions, executions and outbox events take them) and the breach counts of GET /metrics.
 */
export class Migration20261128122000_sla_triggers extends Migration {

  override name = 'Migration20261128122000_sla_triggers';

  override up(): void | Promise<void> {
    this.addSql(`create table "sla_breach_counts" ("workspace_id" uuid not null, "metric" text not null, "priority" text not null, "count" bigint not null default '0', primary key ("workspace_id", "metric", "priority"));`);
    this.addSql(`alter table "workflows" drop constraint "workflows_trigger_type_check";`);
    this.addSql(`alter table "workflows" add constraint "workflows_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook', 'sla_warning', 'sla_breached'));`);
    this.addSql(`alter table "workflow_versions" drop constraint "workflow_versions_trigger_type_check";`);
    this.addSql(`alter table "workflow_versions" add constraint "workflow_versions_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook', 'sla_warning', 'sla_breached'));`);
    this.addSql(`alter table "outbox_events" drop constraint "outbox_events_type_check";`);
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_type_check" check ("type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'message_added', 'note_added', 'sla_warning', 'sla_breached'));`);
    this.addSql(`alter table "executions" drop constraint "executions_triggered_by_check";`);
    this.addSql(`alter table "executions" add constraint "executions_triggered_by_check" check ("triggered_by" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook', 'sla_warning', 'sla_breached'));`);
    this.addSql(`alter table "sla_breach_counts" add constraint "sla_breach_counts_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "sla_breach_counts" add constraint "sla_breach_counts_metric_check" check ("metric" in ('first_reply', 'next_reply', 'resolution'));`);
    this.addSql(`alter table "sla_breach_counts" add constraint "sla_breach_counts_priority_check" check ("priority" in ('low', 'medium', 'high', 'urgent'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sla_breach_counts" cascade;`);
    this.addSql(`alter table "executions" drop constraint "executions_triggered_by_check";`);
    this.addSql(`alter table "executions" add constraint "executions_triggered_by_check" check ("triggered_by" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);
    this.addSql(`alter table "outbox_events" drop constraint "outbox_events_type_check";`);
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_type_check" check ("type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'message_added', 'note_added'));`);
    this.addSql(`alter table "workflow_versions" drop constraint "workflow_versions_trigger_type_check";`);
    this.addSql(`alter table "workflow_versions" add constraint "workflow_versions_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);
    this.addSql(`alter table "workflows" drop constraint "workflows_trigger_type_check";`);
    this.addSql(`alter table "workflows" add constraint "workflows_trigger_type_check" check ("trigger_type" in ('ticket_created', 'ticket_updated', 'ticket_closed', 'message_received', 'tag_added', 'manual', 'scheduled', 'webhook'));`);
  }

}
