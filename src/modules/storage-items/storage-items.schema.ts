import { Type, type Static } from 'typebox';
import type { StorageItemRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Name, nameRequired, Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';
import { ItemTranslationChanges, TranslationsSchema } from '../banner/banner.schema.ts';

export const SAME_SITES = ['Lax', 'Strict', 'None'] as const;
export const STORAGE_TYPES = ['cookie', 'local_storage', 'session_storage'] as const;
export const STATUSES = ['draft', 'processing', 'in_review', 'finalised'] as const;
/** `processing` belongs to the AI while it works on an item; clients never set it. */
export const CLIENT_STATUSES = ['draft', 'in_review', 'finalised'] as const;
export const APPROVERS = ['User', 'AI', 'API'] as const;
export const CREATORS = ['user', 'api', 'scan'] as const;

export const StorageItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'Cookie or storage key; a name containing * is a wildcard, e.g. _ga_*' }),
  description: Type.String(),
  company_name: Type.String(),
  domain: Type.String(),
  duration: Type.String({ description: 'Human-readable duration, e.g. 2 years' }),
  last_seen_at: Nullable(Timestamp),
  partitioned: Type.Boolean(),
  path: Type.String(),
  same_site: Nullable(StringEnum(SAME_SITES)),
  category_id: Nullable(Type.String({ description: 'Null until the item is categorised' })),
  status: StringEnum(STATUSES),
  approved_by_type: Nullable(StringEnum(APPROVERS, { description: 'Who finalised it; null unless finalised' })),
  is_wildcard_cookie: Type.Boolean({ description: 'The name contains *; computed from the name' }),
  wildcard_cookie_id: Nullable(Type.String({ description: 'The wildcard item of the account whose pattern this name matches' })),
  storage_type: StringEnum(STORAGE_TYPES),
  created_by: StringEnum(CREATORS),
  translations: TranslationsSchema(['description', 'duration'], "Description and duration in other languages than the account's, by language code"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StorageItem = Static<typeof StorageItemSchema>;

const fields = {
  name: Name(),
  description: Text(2000),
  company_name: Text(255),
  domain: Text(255),
  duration: Text(255),
  path: Text(1024),
  same_site: Nullable(StringEnum(SAME_SITES)),
  partitioned: Type.Boolean(),
  storage_type: StringEnum(STORAGE_TYPES),
  category_id: Nullable(Text(64, { description: 'A category of the same account' })),
  status: StringEnum(CLIENT_STATUSES, { description: 'draft → in_review → finalised; processing is set only by the AI' }),
  last_seen_at: Nullable(Type.String({ format: 'date-time', maxLength: 64 })),
  translations: ItemTranslationChanges({ description: 2000, duration: 255 }, 'Description and duration'),
};

export const UpdateStorageItemBody = Type.Object({ storage_item: Type.Partial(Type.Object(fields)) });
export type StorageItemFields = Static<typeof UpdateStorageItemBody>['storage_item'];

export const CreateStorageItemBody = Type.Object({ storage_item: nameRequired(fields) });

/** The items a bulk action names: at most a page of the list (100), each once or more. */
const ItemIds = (description: string) => Type.Array(Type.String({ format: 'uuid', maxLength: 36 }), { minItems: 1, maxItems: 100, description });

/** No body (or `null`): every uncategorised draft of the account; `ids`: those of them only. */
export const ClassifyBody = Nullable(Type.Object({
  ids: ItemIds('Only these items, of those that are uncategorised drafts'),
}, { description: 'Which items; without a body, every uncategorised draft of the account' }));

export const ApproveBody = Type.Object({
  ids: ItemIds('The items to finalise; those without a category, already finalised or being worked on by the AI are skipped'),
});

export const ApproveAnswer = Type.Object({
  data: Type.Object({
    approved: Type.Array(Type.String(), { description: 'The items now finalised, approved by the caller' }),
    skipped: Type.Array(Type.String(), { description: 'The other ids sent: no category, already finalised, processing, or not an item of the account' }),
  }),
});

export const STORAGE_ITEM_SORTS = ['created_at', 'updated_at', 'name', 'last_seen_at'] as const;
export const StorageItemListQuery = offsetQuery(STORAGE_ITEM_SORTS, {
  category_id: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  status: Type.Optional(StringEnum(STATUSES)),
  storage_type: Type.Optional(StringEnum(STORAGE_TYPES)),
  uncategorised: Type.Optional(Type.Boolean({ description: 'true: only the items without a category' })),
  created_by: Type.Optional(StringEnum(CREATORS, { description: 'Only the items added by people (user), an API token (api) or a scan (scan)' })),
});
export type StorageItemFilters = Pick<Static<typeof StorageItemListQuery>, 'category_id' | 'status' | 'storage_type' | 'uncategorised' | 'created_by'>;

export function toStorageItem(row: StorageItemRow): StorageItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    company_name: row.company_name,
    domain: row.domain,
    duration: row.duration,
    last_seen_at: row.last_seen_at?.toISOString() ?? null,
    partitioned: row.partitioned,
    path: row.path,
    same_site: row.same_site,
    category_id: row.category_id,
    status: row.status,
    approved_by_type: row.approved_by_type,
    is_wildcard_cookie: row.is_wildcard_cookie,
    wildcard_cookie_id: row.wildcard_cookie_id,
    storage_type: row.storage_type,
    created_by: row.created_by,
    translations: row.translations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
