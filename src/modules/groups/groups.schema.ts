import { Type, type Static } from 'typebox';
import type { GroupRow } from '../../db/schema.ts';
import { Name, Nullable, Text, Timestamp } from '../../http/schemas.ts';
import { pageQuery } from '../../http/pagination.ts';

export const GroupSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  external_id: Nullable(Type.String()),
  partner: Type.String({ description: 'Id of the owning partner' }),
  max_pageviews_per_month: Nullable(Type.Integer()),
  max_unique_visitors_per_month: Nullable(Type.Integer()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Group = Static<typeof GroupSchema>;

const Quota = Nullable(Type.Integer({ minimum: 0, maximum: 2_000_000_000 }));

const fields = {
  name: Name(),
  external_id: Nullable(Text(255)),
  max_pageviews_per_month: Quota,
  max_unique_visitors_per_month: Quota,
};

export const CreateGroupBody = Type.Object({
  group: Type.Object({
    name: fields.name,
    external_id: Type.Optional(fields.external_id),
    max_pageviews_per_month: Type.Optional(Quota),
    max_unique_visitors_per_month: Type.Optional(Quota),
  }),
});

export const UpdateGroupBody = Type.Object({ group: Type.Partial(Type.Object(fields)) });
export type GroupFields = Partial<Static<typeof UpdateGroupBody>['group']>;

export const GroupListQuery = pageQuery({
  external_id: Type.Optional(Type.String({ maxLength: 255, description: 'Only the group with this external id' })),
});

export function toGroup(row: GroupRow): Group {
  return {
    id: row.id,
    name: row.name,
    external_id: row.external_id,
    partner: row.partner_id,
    max_pageviews_per_month: row.max_pageviews_per_month,
    max_unique_visitors_per_month: row.max_unique_visitors_per_month,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
