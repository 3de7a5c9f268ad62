import { Migration } from '@mikro-orm/migrations';

/**
 * The AI owner's drafts (autoSend false) ask for a person's yes as approvals: an approval no run
 * asked for has no workflow, execution, node or run to wake (`source` says who asked), names
 * its draft and, in a column of its own with a foreign key, its ticket: it is kept as long as
 * the ticket (ticket_id itself stays as older processes write it). A draft a person rejected is `discarded`.
 * Expand-only: columns become nullable or are added with a default; rows of runs stay as they are.
 */
export class Migration20261128150000_ai_draft_approvals extends Migration {

  override name = 'Migration20261128150000_ai_draft_approvals';

  override up(): void | Promise<void> {
    this.addSql(`alter table "approvals" add column "source" text not null default 'run', add column "draft_id" uuid null, add column "ai_ticket_id" uuid null;`);
    this.addSql(`alter table "approvals" alter column "execution_id" drop not null, alter column "workflow_id" drop not null, alter column "node_id" drop not null, alter column "temporal_workflow_id" drop not null;`);
    this.addSql(`alter table "approvals" add constraint "approvals_source_check" check ("source" in ('run', 'ai_owner'));`);
    this.addSql(`create unique index "approvals_draft_unique" on "approvals" ("draft_id") where "draft_id" is not null;`);
    this.addSql(`alter table "approvals" add constraint "approvals_ai_ticket_id_foreign" foreign key ("ai_ticket_id") references "tickets" ("id") on delete cascade;`);
    this.addSql(`alter table "ai_turns" drop constraint if exists "ai_turns_draft_state_check";`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_draft_state_check" check ("draft_state" in ('waiting', 'sent', 'superseded', 'discarded'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "approvals" where "source" <> 'run';`);
    this.addSql(`update "ai_turns" set "draft_state" = 'superseded' where "draft_state" = 'discarded';`);
    this.addSql(`alter table "ai_turns" drop constraint if exists "ai_turns_draft_state_check";`);
    this.addSql(`alter table "ai_turns" add constraint "ai_turns_draft_state_check" check ("draft_state" in ('waiting', 'sent', 'superseded'));`);
    this.addSql(`alter table "approvals" drop constraint if exists "approvals_ai_ticket_id_foreign";`);
    this.addSql(`drop index if exists "approvals_draft_unique";`);
    this.addSql(`alter table "approvals" drop constraint if exists "approvals_source_check";`);
    this.addSql(`alter table "approvals" alter column "execution_id" set not null, alter column "workflow_id" set not null, alter column "node_id" set not null, alter column "temporal_workflow_id" set not null;`);
    this.addSql(`alter table "approvals" drop column "source", drop column "draft_id", drop column "ai_ticket_id";`);
  }

}
