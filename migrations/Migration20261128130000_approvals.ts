import { Migration } from '@mikro-orm/migrations';

/**
 * Approvals: a run's question to named people (request_approval) and their decisions, kept as
 * long as the execution that asked; a decision's signal to the run waits here until Temporal
 * has acknowledged it.
 */
export class Migration20261128130000_approvals extends Migration {

  override name = 'Migration20261128130000_approvals';

  override up(): void | Promise<void> {
    this.addSql(`create table "approvals" ("id" uuid not null, "created_at" timestamptz(3) not null, "workspace_id" uuid not null, "execution_id" uuid not null, "workflow_id" uuid not null, "ticket_id" uuid null, "node_id" varchar(100) not null, "question" text not null, "approvers" text[] not null, "quorum" text not null, "status" text not null, "decisions" jsonb not null, "due_at" timestamptz(3) null, "decided_at" timestamptz(3) null, "temporal_workflow_id" varchar(300) not null, "signal_pending" boolean not null default false, "signal_attempts" int not null default 0, "signal_error" text null, primary key ("id"));`);
    this.addSql(`create index "approvals_workspace_created_idx" on "approvals" ("workspace_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "approvals_pending_idx" on "approvals" ("workspace_id", "created_at" desc, "id" desc) where "status" = 'pending';`);
    this.addSql(`create index "approvals_approvers_idx" on "approvals" using gin ("approvers");`);
    this.addSql(`create index "approvals_signal_pending_idx" on "approvals" ("decided_at") where "signal_pending";`);
    this.addSql(`alter table "approvals" add constraint "approvals_execution_node_unique" unique ("execution_id", "node_id");`);

    this.addSql(`alter table "approvals" add constraint "approvals_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "approvals" add constraint "approvals_execution_id_foreign" foreign key ("execution_id") references "executions" ("id") on delete cascade;`);
    this.addSql(`alter table "approvals" add constraint "approvals_workflow_id_foreign" foreign key ("workflow_id") references "workflows" ("id") on delete cascade;`);
    this.addSql(`alter table "approvals" add constraint "approvals_quorum_check" check ("quorum" in ('any', 'all'));`);
    this.addSql(`alter table "approvals" add constraint "approvals_status_check" check ("status" in ('pending', 'approved', 'rejected', 'expired', 'cancelled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "approvals" cascade;`);
  }

}
