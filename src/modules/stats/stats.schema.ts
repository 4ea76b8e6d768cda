import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

const Day = Type.String({ format: 'date', description: 'A UTC day, YYYY-MM-DD' });

/** What the consents of a range can be broken down by. */
export const BREAKDOWNS = ['country', 'mode', 'tcf_purpose'] as const;
export type Breakdown = Exclude<(typeof BREAKDOWNS)[number], 'tcf_purpose'>;

export const StatsQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'First UTC day (inclusive); default: 29 days before `to`' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'Last UTC day (inclusive); default: today' })),
  interval: Type.Optional(StringEnum(INTERVALS, { description: 'Bucket size; weeks start on Monday (ISO); default: day' })),
  by: Type.Optional(StringEnum(BREAKDOWNS, {
    description: "Also break the range's consents down per country where they were given, or per banner mode applied (`breakdown`), "
      + 'or count the TC strings recorded per IAB TCF purpose (`tcf_purposes`)',
  })),
});
export type StatsQuery = Static<typeof StatsQuery>;

/** What the consent rate is: the API's words, docs/api.md's and the dashboard's. */
export const CONSENT_RATE = 'consenting_visitors / unique_visitors: the share of the distinct visitors shown the banner who chose '
  + '(accepted or refused), over the same span. A visitor who chose twice counts once; consents recorded without the banner count '
  + 'their session as a visitor too. Both are counted by HyperLogLog sketches, the choosers\' sketch always contained in the '
  + 'visitors\' and the count monotone, so the rate is at most 1; null when there was no visitor';

const Rate = Nullable(Type.Number({ description: 'A share between 0 and 1; null when there is nothing to divide by' }));

const Figures = {
  consents: Type.Integer(),
  accept_types: Type.Object({ all: Type.Integer(), custom: Type.Integer(), necessary: Type.Integer() }),
  gpc_share: Rate,
  categories: Type.Array(Type.Object({
    category_id: Type.String(),
    slug: Nullable(Type.String()),
    name: Nullable(Type.String()),
    accepted: Type.Integer(),
    rejected: Type.Integer(),
    acceptance_rate: Rate,
  })),
  pageviews: Type.Integer(),
  unique_visitors: Type.Integer({
    description: 'Distinct visitors shown the banner (sessions it asked on a page, or that chose): a HyperLogLog estimate, about 2% error',
  }),
  consenting_visitors: Type.Integer({
    description: 'Of the unique visitors, those who chose (a consent recorded for their session, whatever the choice), counted the same way',
  }),
  consent_rate: Nullable(Type.Number({ description: CONSENT_RATE })),
};
const FiguresSchema = Type.Object(Figures);
export type StatsFigures = Static<typeof FiguresSchema>;

/** The consents of one country or mode over the whole range. */
const BreakdownEntry = Type.Object({
  value: Nullable(Type.String({
    description: 'The country (ISO 3166-1 alpha-2) or the mode (opt-in, opt-out, notice, none); null: the country was unknown, or no mode was recorded (consents before modes were kept)',
  })),
  consents: Type.Integer(),
  accept_types: Type.Object({ all: Type.Integer(), custom: Type.Integer(), necessary: Type.Integer() }),
  opt_outs: Type.Integer({ description: 'Consents given in opt-out mode that rejected a (necessarily optional) category' }),
  gpc: Type.Integer({ description: 'Consents with a Global Privacy Control signal' }),
  accept_all_rate: Rate,
  reject_all_rate: Nullable(Type.Number({ description: 'necessary / consents: the share that accepted only the required categories' })),
  custom_rate: Rate,
  opt_out_rate: Nullable(Type.Number({ description: 'opt_outs / consents' })),
  gpc_share: Rate,
});
export type BreakdownEntry = Static<typeof BreakdownEntry>;

const Breakdowns = Type.Array(BreakdownEntry, {
  description: 'With `by`: the totals of the range (not of the previous period) per country or per mode, most consents first; '
    + 'their consents add up to `totals.consents`',
});

/** Per TCF purpose, from the TC strings recorded in the range (decoded when they were recorded). */
const TcfPurposes = Type.Object({
  tc_strings: Type.Integer({ description: 'Consents recorded with a TC string in the range' }),
  purposes: Type.Array(Type.Object({
    purpose: Type.Integer({ description: 'The TCF purpose, 1 to 11' }),
    consents: Type.Integer({ description: 'TC strings giving consent to the purpose' }),
    legitimate_interests: Type.Integer({ description: 'TC strings leaving the legitimate interest for the purpose standing (not objected to)' }),
    consent_rate: Rate,
  }), { description: 'Purposes 1 to 11, in order, each present (zero when no string named it)' }),
}, { description: 'With `by=tcf_purpose`: acceptance per IAB TCF purpose' });

const Change = Nullable(Type.Number({ description: 'Relative change against the previous period; null when it had none' }));

export const StatsSchema = Type.Object({
  from: Day,
  to: Day,
  interval: StringEnum(INTERVALS),
  data: Type.Array(Type.Object({ start: Day, end: Day, ...Figures })),
  totals: Type.Object({
    ...Figures,
    previous: Type.Object({
      from: Day, to: Day, consents: Type.Integer(), pageviews: Type.Integer(), unique_visitors: Type.Integer(), consent_rate: Nullable(Type.Number()),
    }),
    change: Type.Object({ consents: Change, pageviews: Change, unique_visitors: Change, consent_rate: Change }),
  }),
  breakdown: Type.Optional(Breakdowns),
  tcf_purposes: Type.Optional(TcfPurposes),
});
export type TcfPurposeStats = Static<typeof TcfPurposes>;
export type Stats = Static<typeof StatsSchema>;

export const GroupStatsSchema = Type.Object({
  ...StatsSchema.properties,
  accounts: Type.Array(Type.Object({
    id: Type.String(),
    name: Type.String(),
    consents: Type.Integer(),
    pageviews: Type.Integer(),
    unique_visitors: Type.Integer(),
    consent_rate: Nullable(Type.Number()),
  })),
});
export type GroupStats = Static<typeof GroupStatsSchema>;

/** An account of a group as its statistics list it: its name beside its totals. */
export function toGroupAccount(account: { id: string; name: string }, figures: StatsFigures): GroupStats['accounts'][number] {
  return {
    id: account.id, name: account.name, consents: figures.consents, pageviews: figures.pageviews,
    unique_visitors: figures.unique_visitors, consent_rate: figures.consent_rate,
  };
}
