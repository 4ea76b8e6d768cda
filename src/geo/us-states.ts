/**
 * The ISO 3166-2 subdivisions of the United States that rules may name: the 50 states and the
 * District of Columbia, with their names as geolocation databases write them (DB-IP's `state1` is a
 * name, not a code).
 *
 * The outlying areas also have ISO 3166-2:US codes (`US-PR`, `US-GU`, `US-VI`, `US-AS`, `US-MP`,
 * `US-UM`), but every geolocation source reports them as countries of their own (`PR`, `GU`, …):
 * in rules they are named by those codes, and `US-PR` is read as `PR` (see `US_TERRITORIES`).
 */
export const US_STATES: Readonly<Record<string, string>> = {
  'US-AL': 'Alabama',
  'US-AK': 'Alaska',
  'US-AZ': 'Arizona',
  'US-AR': 'Arkansas',
  'US-CA': 'California',
  'US-CO': 'Colorado',
  'US-CT': 'Connecticut',
  'US-DE': 'Delaware',
  'US-DC': 'District of Columbia',
  'US-FL': 'Florida',
  'US-GA': 'Georgia',
  'US-HI': 'Hawaii',
  'US-ID': 'Idaho',
  'US-IL': 'Illinois',
  'US-IN': 'Indiana',
  'US-IA': 'Iowa',
  'US-KS': 'Kansas',
  'US-KY': 'Kentucky',
  'US-LA': 'Louisiana',
  'US-ME': 'Maine',
  'US-MD': 'Maryland',
  'US-MA': 'Massachusetts',
  'US-MI': 'Michigan',
  'US-MN': 'Minnesota',
  'US-MS': 'Mississippi',
  'US-MO': 'Missouri',
  'US-MT': 'Montana',
  'US-NE': 'Nebraska',
  'US-NV': 'Nevada',
  'US-NH': 'New Hampshire',
  'US-NJ': 'New Jersey',
  'US-NM': 'New Mexico',
  'US-NY': 'New York',
  'US-NC': 'North Carolina',
  'US-ND': 'North Dakota',
  'US-OH': 'Ohio',
  'US-OK': 'Oklahoma',
  'US-OR': 'Oregon',
  'US-PA': 'Pennsylvania',
  'US-RI': 'Rhode Island',
  'US-SC': 'South Carolina',
  'US-SD': 'South Dakota',
  'US-TN': 'Tennessee',
  'US-TX': 'Texas',
  'US-UT': 'Utah',
  'US-VT': 'Vermont',
  'US-VA': 'Virginia',
  'US-WA': 'Washington',
  'US-WV': 'West Virginia',
  'US-WI': 'Wisconsin',
  'US-WY': 'Wyoming',
};

/** The outlying areas' ISO 3166-2:US codes and the country codes they are found under. */
export const US_TERRITORIES: Readonly<Record<string, string>> = {
  'US-AS': 'AS',
  'US-GU': 'GU',
  'US-MP': 'MP',
  'US-PR': 'PR',
  'US-UM': 'UM',
  'US-VI': 'VI',
};

const byName = new Map(Object.entries(US_STATES).map(([code, name]) => [name.toLowerCase(), code]));
byName.set('washington, d.c.', 'US-DC');
byName.set('washington dc', 'US-DC');

/** `California` → `US-CA`; a name that is no state (or is written otherwise) → null. */
export function usStateByName(name: string): string | null {
  return byName.get(name.trim().toLowerCase()) ?? null;
}
