import { Type } from 'typebox';
import { DECLARATION_TEXT_KEYS } from '../../../banner/src/declaration-texts.ts';
import { StringEnum } from '../../http/schemas.ts';

export const DeclarationQuery = Type.Object({
  lang: Type.Optional(Type.String({
    maxLength: 35,
    description: 'The language wanted (a tag: de, de-CH); one the banner does not speak falls back as the banner does, then to the account\'s default language',
  })),
});

const DeclarationItem = Type.Object({
  name: Type.String(),
  provider: Type.String({ description: 'The company, else the domain' }),
  domain: Type.String(),
  purpose: Type.String(),
  duration: Type.String(),
  type: StringEnum(['cookie', 'local_storage', 'session_storage'] as const),
});

export const DeclarationSchema = Type.Object({
  data: Type.Object({
    language: Type.String({ description: 'The language of the texts and the account\'s words' }),
    languages: Type.Array(Type.String(), { description: 'Every language the declaration is served in' }),
    texts: Type.Object(Object.fromEntries(DECLARATION_TEXT_KEYS.map((key) => [key, Type.String()]))),
    categories: Type.Array(Type.Object({
      slug: Type.String(),
      name: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      items: Type.Array(DeclarationItem, { description: 'The finalised storage items of the category' }),
    }), { description: 'The published categories, in the banner\'s order' }),
    html: Type.String({ description: 'The same as markup, every word escaped: what the banner script shows' }),
  }),
});
