import { Type, type Static } from 'typebox';
import type { ServiceRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { nameRequired, Nullable, Text, Timestamp } from '../../http/schemas.ts';
import { TranslationsSchema } from '../banner/banner.schema.ts';
import { NamedFields, NamedTranslationChanges } from '../categories/categories.schema.ts';

export const ServiceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String({ description: "Unique in the account; the key meant for a consent's accepted_services and rejected_services" }),
  description: Type.String(),
  category_id: Nullable(Type.String({ description: 'The category the service is under, null when none' })),
  company_name: Type.String(),
  privacy_policy_url: Nullable(Type.String()),
  translations: TranslationsSchema(['name', 'description'], "Name and description in other languages than the account's, by language code"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Service = Static<typeof ServiceSchema>;

const fields = {
  ...NamedFields,
  category_id: Nullable(Type.String({ maxLength: 64 })),
  company_name: Text(255),
  privacy_policy_url: Nullable(Text(2048)),
  translations: NamedTranslationChanges,
};

export const CreateServiceBody = Type.Object({ service: nameRequired(fields) });

export const UpdateServiceBody = Type.Object({ service: Type.Partial(Type.Object(fields)) });
export type ServiceFields = Static<typeof UpdateServiceBody>['service'];

export const SERVICE_SORTS = ['created_at'] as const;
export const ServiceListQuery = offsetQuery(SERVICE_SORTS, {
  category_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export function toService(row: ServiceRow): Service {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    category_id: row.category_id,
    company_name: row.company_name,
    privacy_policy_url: row.privacy_policy_url,
    translations: row.translations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
