import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from '../common/base-entity.ts';
import type { BusinessCalendar } from '../graph/index.ts';
import { Workspace } from '../workspaces/entity.ts';

export type OpeningHours = BusinessCalendar['hours'];
export type Holidays = Array<{ date: string; name: string }>;

/** When a workspace's desk is open: a time zone, weekly opening hours and holidays (docs/automations.md, "Business hours"). */
const CalendarSchema = defineEntity({
  name: 'Calendar',
  tableName: 'calendars',
  extends: BaseEntity,
  properties: {
    workspace: () => p.manyToOne(Workspace).mapToPk().deleteRule('cascade'),
    name: p.string().length(200),
    /** An IANA time zone name, as given. */
    timeZone: p.string().length(100),
    /** `{ day, from, to }` intervals, as given. */
    hours: p.json<OpeningHours>(),
    /** `{ date, name }`, as given. */
    holidays: p.json<Holidays>(),
    updatedAt: p.datetime(3).onCreate((c: { createdAt?: Date }) => c.createdAt ?? new Date()),
    /** Deleted calendars are gone from the API; rows stay so runs that name them keep reading them. */
    deletedAt: p.datetime(3).nullable(),
  },
  indexes: [
    {
      name: 'calendars_workspace_created_idx',
      expression: 'create index "calendars_workspace_created_idx" on "calendars" ("workspace_id", "created_at" desc, "id" desc) where "deleted_at" is null',
    },
  ],
});
export class Calendar extends CalendarSchema.class {}
CalendarSchema.setClass(Calendar);
