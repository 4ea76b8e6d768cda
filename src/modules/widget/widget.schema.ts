import { Type } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';

export const WidgetParams = Type.Object({ account_id: Type.String({ format: 'uuid' }) });
export const WidgetConfigQuery = Type.Object({
  session_id: Type.Optional(Type.String({ maxLength: 128, description: 'Counts this visitor for the account' })),
});

const BannerItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  duration: Type.String(),
  description: Type.String(),
  company_name: Type.String(),
  storage_type: StringEnum(['cookie', 'local_storage', 'session_storage'] as const),
  is_wildcard_cookie: Type.Boolean(),
});

export const WidgetConfig = Type.Object({
  data: Type.Object({
    account: Type.Object({ id: Type.String(), name: Type.String(), default_language: Type.String() }),
    categories: Type.Array(Type.Object({
      id: Type.String(),
      slug: Type.String(),
      name: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      storage_items: Type.Array(BannerItem),
    })),
  }),
});

export const RecordedConsent = Type.Object({ data: Type.Object({ id: Type.String(), created_at: Timestamp }) });
