import { useState } from 'preact/hooks';
import { must, type Body } from '../api/client';
import { api } from '../session';
import { GeoAttribution, countryName, modeName } from '../places';
import { ErrorNote, Loading, Select, Table, useLoad } from '../ui';

/**
 * Statistics as plain SVG charts, each with its figures as a table beside it (the text alternative:
 * a screen reader reads the table, the chart is one labelled image). No chart library: four simple
 * shapes cost less than one dependency.
 */
type Stats = Body<'/api/v1/stats', 'get'>;
type Bucket = Stats['data'][number];
type Interval = Stats['interval'];
type By = 'country' | 'mode';
type Entry = NonNullable<Stats['breakdown']>[number];

const RANGES: [string, string][] = [['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days'], ['365', 'Last 12 months']];
const INTERVALS: [Interval, string][] = [['day', 'By day'], ['week', 'By week'], ['month', 'By month']];
const BYS: [By, string][] = [['country', 'Country'], ['mode', 'Banner mode']];
/** The rows a breakdown shows before "Show all". */
const FIRST_ROWS = 10;
const ACCEPT: [keyof Bucket['accept_types'], string, string][] = [
  ['all', 'Accepted all', '#1f4e8c'],
  ['custom', 'Chose', '#c77c02'],
  ['necessary', 'Necessary only', '#6b7a8f'],
];

const percent = (share: number | null | undefined) => (share === null || share === undefined ? '—' : `${Math.round(share * 1000) / 10}%`);
const number = (n: number) => n.toLocaleString('en-GB');
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const short = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** The range of days asked for: the last N days up to today (UTC). */
function rangeOf(days: number) {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: dayOf(from), to: dayOf(to) };
}

const W = 400;
const H = 200;
const PAD = { left: 36, right: 6, top: 10, bottom: 24 };

/** A few round values for the vertical axis. */
function ticks(max: number): number[] {
  if (max <= 0) return [0];
  const step = 10 ** Math.floor(Math.log10(max));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => max / s <= 5) ?? step * 10;
  return Array.from({ length: Math.floor(max / nice) + 1 }, (_, i) => i * nice);
}

function Axis({ max, format, labels }: { max: number; format: (n: number) => string; labels: string[] }) {
  const plotH = H - PAD.top - PAD.bottom;
  const every = Math.max(1, Math.ceil(labels.length / 5));
  const width = (W - PAD.left - PAD.right) / Math.max(1, labels.length);
  return (
    <g class="axis" aria-hidden="true">
      {ticks(max).map((tick) => {
        const y = PAD.top + plotH - (max === 0 ? 0 : (tick / max) * plotH);
        return <g key={tick}><line x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} /><text x={PAD.left - 4} y={y + 4} text-anchor="end">{format(tick)}</text></g>;
      })}
      {labels.map((label, i) => (i % every === 0
        ? <text key={i} x={PAD.left + width * (i + 0.5)} y={H - 8} text-anchor="middle">{label}</text>
        : null))}
    </g>
  );
}

function Legend({ items }: { items: [string, string][] }) {
  return (
    <ul class="legend" aria-hidden="true">
      {items.map(([label, colour]) => <li key={label}><span class="swatch" style={{ background: colour }} />{label}</li>)}
    </ul>
  );
}

/** A chart and its table: the chart for the eye, the table for everyone else (and for exact numbers). */
function Chart({ title, summary, chart, table, legend }: {
  title: string; summary: string; chart: preact.JSX.Element; table: preact.JSX.Element; legend?: [string, string][];
}) {
  return (
    <figure class="chart card">
      <figcaption><h3>{title}</h3></figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${summary}`} preserveAspectRatio="xMidYMid meet">{chart}</svg>
      {legend && <Legend items={legend} />}
      <details>
        <summary>{title} as a table</summary>
        {table}
      </details>
    </figure>
  );
}

function ConsentsChart({ buckets }: { buckets: Bucket[] }) {
  const top = Math.max(1, ...buckets.map((b) => b.consents));
  const plotH = H - PAD.top - PAD.bottom;
  const width = (W - PAD.left - PAD.right) / Math.max(1, buckets.length);
  const total = buckets.reduce((sum, b) => sum + b.consents, 0);
  return (
    <Chart title="Consents by choice" summary={`${number(total)} consents in ${buckets.length} periods`}
      legend={ACCEPT.map(([, label, colour]) => [label, colour])}
      chart={<>
        <Axis max={top} format={number} labels={buckets.map((b) => short(b.start))} />
        {buckets.map((bucket, i) => {
          let y = PAD.top + plotH;
          return ACCEPT.map(([key, , colour]) => {
            const h = (bucket.accept_types[key] / top) * plotH;
            y -= h;
            return h > 0 ? <rect key={`${i}-${key}`} x={PAD.left + width * i + width * 0.15} width={width * 0.7} y={y} height={h} fill={colour} /> : null;
          });
        })}
      </>}
      table={
        <Table label="Consents by choice">
          <thead><tr><th scope="col">Period</th>{ACCEPT.map(([key, label]) => <th key={key} scope="col">{label}</th>)}<th scope="col">All consents</th></tr></thead>
          <tbody>{buckets.map((b) => (
            <tr key={b.start}><th scope="row">{b.start === b.end ? b.start : `${b.start} to ${b.end}`}</th>
              {ACCEPT.map(([key]) => <td key={key}>{number(b.accept_types[key])}</td>)}<td>{number(b.consents)}</td></tr>
          ))}</tbody>
        </Table>
      } />
  );
}

function RatesChart({ buckets }: { buckets: Bucket[] }) {
  const series: [string, string, (b: Bucket) => number | null][] = [
    ['Consent rate', '#1f4e8c', (b) => b.consent_rate],
    ['GPC share', '#a4262c', (b) => b.gpc_share],
  ];
  const max = Math.max(1, ...buckets.flatMap((b) => series.map(([, , value]) => value(b) ?? 0)));
  const plotH = H - PAD.top - PAD.bottom;
  const width = (W - PAD.left - PAD.right) / Math.max(1, buckets.length);
  const point = (i: number, v: number) => `${PAD.left + width * (i + 0.5)},${PAD.top + plotH - (v / max) * plotH}`;
  return (
    <Chart title="Consent rate and GPC share" summary="the share of visitors shown the banner who chose, and the share of consents sent with Global Privacy Control, per period"
      legend={series.map(([label, colour]) => [label, colour])}
      chart={<>
        <Axis max={max} format={(n) => `${Math.round(n * 100)}%`} labels={buckets.map((b) => short(b.start))} />
        {series.map(([label, colour, value]) => {
          const points = buckets.map((b, i) => [i, value(b)] as const).filter((p): p is readonly [number, number] => p[1] !== null);
          return (
            <g key={label}>
              <polyline fill="none" stroke={colour} stroke-width={2} points={points.map(([i, v]) => point(i, v)).join(' ')} />
              {points.map(([i, v]) => { const [x, y] = point(i, v).split(','); return <circle key={i} cx={x} cy={y} r={3} fill={colour} />; })}
            </g>
          );
        })}
      </>}
      table={
        <Table label="Consent rate and GPC share">
          <thead><tr><th scope="col">Period</th><th scope="col">Unique visitors</th><th scope="col">Visitors who chose</th><th scope="col">Consent rate</th><th scope="col">GPC share</th></tr></thead>
          <tbody>{buckets.map((b) => (
            <tr key={b.start}><th scope="row">{b.start === b.end ? b.start : `${b.start} to ${b.end}`}</th>
              <td>{number(b.unique_visitors)}</td><td>{number(b.consenting_visitors)}</td><td>{percent(b.consent_rate)}</td><td>{percent(b.gpc_share)}</td></tr>
          ))}</tbody>
        </Table>
      } />
  );
}

function CategoriesChart({ categories }: { categories: Stats['totals']['categories'] }) {
  const rowH = 28;
  const height = Math.max(1, categories.length) * rowH + 8;
  const labelW = 130;
  const barW = W - labelW - 48;
  const named = categories.map((c) => ({ ...c, label: c.name ?? c.slug ?? 'A deleted category' }));
  return (
    <figure class="chart card">
      <figcaption><h3>Acceptance by category</h3></figcaption>
      {named.length === 0 ? <p>No choices per category were recorded in this period.</p> : (
        <svg viewBox={`0 0 ${W} ${height}`} role="img" preserveAspectRatio="xMidYMid meet"
          aria-label={`Acceptance by category: ${named.map((c) => `${c.label} ${percent(c.acceptance_rate)}`).join(', ')}`}>
          {named.map((c, i) => (
            <g key={c.category_id} class="axis">
              <text x={labelW - 8} y={i * rowH + 19} text-anchor="end">{c.label.length > 20 ? `${c.label.slice(0, 19)}…` : c.label}</text>
              <rect x={labelW} y={i * rowH + 6} width={barW} height={16} fill="#e8ecf2" />
              <rect x={labelW} y={i * rowH + 6} width={barW * (c.acceptance_rate ?? 0)} height={16} fill="#1e5b2e" />
              <text x={labelW + barW + 6} y={i * rowH + 19}>{percent(c.acceptance_rate)}</text>
            </g>
          ))}
        </svg>
      )}
      <details>
        <summary>Acceptance by category as a table</summary>
        <Table label="Acceptance by category">
          <thead><tr><th scope="col">Category</th><th scope="col">Accepted</th><th scope="col">Refused</th><th scope="col">Acceptance rate</th></tr></thead>
          <tbody>{named.map((c) => (
            <tr key={c.category_id}><th scope="row">{c.label}</th><td>{number(c.accepted)}</td><td>{number(c.rejected)}</td><td>{percent(c.acceptance_rate)}</td></tr>
          ))}</tbody>
        </Table>
      </details>
    </figure>
  );
}

/** What a breakdown's row is: a country by name (its code beside it), or a mode. */
function labelOf(by: By, value: string | null): string {
  if (by === 'mode') return value === null ? 'Not recorded (consents before modes were kept)' : modeName(value);
  return value === null ? 'Unknown location' : `${countryName(value)} (${value})`;
}

/**
 * The range's consents per country or per banner mode, most first: how visitors chose there. The
 * first rows are shown, the rest on request (a site seen in 150 countries would otherwise bury the page).
 */
function Breakdown({ by, entries, total }: { by: By; entries: Entry[]; total: number }) {
  const [all, setAll] = useState(false);
  const title = by === 'country' ? 'Consents by country' : 'Consents by banner mode';
  const shown = all ? entries : entries.slice(0, FIRST_ROWS);
  return (
    <div class="card breakdown">
      <h3>{title}</h3>
      {entries.length === 0 ? <p>No consents were recorded in this period.</p> : (
        <>
          <Table label={title}>
            <thead><tr>
              <th scope="col">{by === 'country' ? 'Country' : 'Mode'}</th><th scope="col">Consents</th><th scope="col">Share</th>
              <th scope="col">Accepted all</th><th scope="col">Rejected all</th><th scope="col">Chose</th>
              <th scope="col">Opted out</th><th scope="col">GPC share</th>
            </tr></thead>
            <tbody>{shown.map((e) => (
              <tr key={e.value ?? ''}>
                <th scope="row">{labelOf(by, e.value)}</th><td>{number(e.consents)}</td><td>{percent(total === 0 ? null : e.consents / total)}</td>
                <td>{percent(e.accept_all_rate)}</td><td>{percent(e.reject_all_rate)}</td><td>{percent(e.custom_rate)}</td>
                <td>{percent(e.opt_out_rate)}</td><td>{percent(e.gpc_share)}</td>
              </tr>
            ))}</tbody>
          </Table>
          {entries.length > FIRST_ROWS && (
            <button type="button" class="link" onClick={() => setAll(!all)}>{all ? `Show the first ${FIRST_ROWS}` : `Show all ${entries.length}`}</button>
          )}
        </>
      )}
      <p class="hint">Rates are shares of the consents of each row. Rejected all: only the required categories accepted.
        Opted out: consents given where the banner runs opt-out that switched an optional category off. GPC share: consents
        sent with a Global Privacy Control signal.{by === 'country' && ' The country is where the visitor was when choosing; unknown when it could not be told.'}</p>
      {by === 'country' && <GeoAttribution />}
    </div>
  );
}

function Change({ value }: { value: number | null }) {
  if (value === null) return null;
  const words = value === 0 ? 'no change' : `${value > 0 ? 'up' : 'down'} ${percent(Math.abs(value))}`;
  return <span class="muted"> ({words} on the period before)</span>;
}

/** The headline figures, then the charts, for an account (`GET /stats`) or a group (`GET /groups/{id}/stats`). */
export function StatsPanel({ groupId }: { groupId?: string }) {
  const [days, setDays] = useState('30');
  const [interval, setInterval] = useState<Interval>('day');
  const [by, setBy] = useState<By>('country');
  const stats = useLoad(async () => {
    const query = { ...rangeOf(Number(days)), interval, by };
    const answer = groupId
      ? await must(api.GET('/api/v1/groups/{id}/stats', { params: { path: { id: groupId }, query } }))
      : await must(api.GET('/api/v1/stats', { params: { query } }));
    // The breakdown asked for rides with its answer: while another loads, the rows shown keep their labels.
    return { ...answer, by };
  }, [groupId, days, interval, by]);
  const s = stats.data;
  return (
    <section class="stats" aria-labelledby="stats-title">
      <h2 id="stats-title">Statistics</h2>
      <div class="filters" role="group" aria-label="Statistics period">
        <Select label="Period" value={days} onChange={(e: Event) => setDays((e.currentTarget as HTMLSelectElement).value)} options={RANGES} />
        <Select label="Grouped" value={interval} onChange={(e: Event) => setInterval((e.currentTarget as HTMLSelectElement).value as Interval)} options={INTERVALS} />
        <Select label="Broken down by" value={by} onChange={(e: Event) => setBy((e.currentTarget as HTMLSelectElement).value as By)} options={BYS} />
      </div>
      <ErrorNote error={stats.error} />
      {stats.loading && !s && <Loading what="statistics" />}
      {s && (
        <>
          <dl class="figures">
            <div><dt>Consents</dt><dd>{number(s.totals.consents)}<Change value={s.totals.change.consents} /></dd></div>
            <div><dt>Unique visitors</dt><dd>{number(s.totals.unique_visitors)}<Change value={s.totals.change.unique_visitors} /></dd></div>
            <div><dt>Consent rate</dt><dd>{percent(s.totals.consent_rate)}<Change value={s.totals.change.consent_rate} />
              <span class="hint figure-note">{number(s.totals.consenting_visitors)} of {number(s.totals.unique_visitors)} visitors shown the banner chose, each counted once</span></dd></div>
            <div><dt>GPC share</dt><dd>{percent(s.totals.gpc_share)}</dd></div>
          </dl>
          <div class="chart-pair">
            <ConsentsChart buckets={s.data} />
            <CategoriesChart categories={s.totals.categories} />
            <RatesChart buckets={s.data} />
          </div>
          <Breakdown key={s.by} by={s.by} entries={s.breakdown ?? []} total={s.totals.consents} />
          {'accounts' in s && (
            <Table label="Accounts of the group in this period">
              <thead><tr><th scope="col">Account</th><th scope="col">Consents</th><th scope="col">Unique visitors</th><th scope="col">Consent rate</th></tr></thead>
              <tbody>{(s as Body<'/api/v1/groups/{id}/stats', 'get'>).accounts.map((a) => (
                <tr key={a.id}><th scope="row">{a.name}</th><td>{number(a.consents)}</td><td>{number(a.unique_visitors)}</td><td>{percent(a.consent_rate)}</td></tr>
              ))}</tbody>
            </Table>
          )}
        </>
      )}
    </section>
  );
}
