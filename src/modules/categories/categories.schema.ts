import { Type, type Static } from 'typebox';
import type { CategoryRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Name, nameRequired, Text, Timestamp } from '../../http/schemas.ts';
import { Language } from '../accounts/accounts.schema.ts';
import { ItemTranslationChanges, TranslationsSchema } from '../banner/banner.schema.ts';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from './slug.ts';

const SALE_OR_SHARING =
  'Opting out of the sale or sharing of personal data and of targeted advertising (the "Do Not Sell or Share" link of opt-out regions, ' +
  'or a Global Privacy Control signal there) switches this category off';

export const CategorySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  slug: Type.String(),
  required: Type.Boolean({ description: 'Mandatory: visitors cannot reject it' }),
  published: Type.Boolean({ description: 'Shown in the banner. A category the AI created is unpublished until an admin publishes it' }),
  sale_or_sharing: Type.Boolean({ description: SALE_OR_SHARING }),
  default_language: Type.String(),
  translations: TranslationsSchema(['name', 'description'], 'Name and description in other languages than default_language, by language code'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Category = Static<typeof CategorySchema>;

/** An empty slug asks for the default one, made from the name (services' slugs are alike). */
export const Slug = Type.String({
  maxLength: SLUG_MAX_LENGTH,
  pattern: `^(${SLUG_PATTERN.slice(1, -1)})?$`,
  description: `Unique in the account; ${SLUG_PATTERN}. Defaults to the name, lower-cased, other characters turned into -`,
});

/** The fields a category and a service are written with alike: a name, its slug, a description. */
export const NamedFields = { name: Name(), slug: Slug, description: Text(2000) };
/** Their name and description in other languages. */
export const NamedTranslationChanges = ItemTranslationChanges({ name: 255, description: 2000 }, 'Name and description');

const fields = {
  ...NamedFields,
  required: Type.Boolean(),
  published: Type.Boolean(),
  sale_or_sharing: Type.Boolean({ description: `${SALE_OR_SHARING}. When a category is created without it: true for the slug marketing, else false` }),
  default_language: Language,
  translations: NamedTranslationChanges,
};

export const CreateCategoryBody = Type.Object({ category: nameRequired(fields) });

export const UpdateCategoryBody = Type.Object({ category: Type.Partial(Type.Object(fields)) });
export type CategoryFields = Static<typeof UpdateCategoryBody>['category'];

export const CATEGORY_SORTS = ['created_at', 'updated_at', 'name'] as const;
export const CategoryListQuery = offsetQuery(CATEGORY_SORTS, {});

export function toCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    slug: row.slug,
    required: row.required,
    published: row.published,
    sale_or_sharing: row.sale_or_sharing,
    default_language: row.default_language,
    translations: row.translations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
