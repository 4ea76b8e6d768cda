export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * The text of the UTC period a moment falls in, the last one kept while moments stay in it: every
 * recorded consent asks for its day three times and for its hour once, nearly always today's.
 */
function periodText(periodMs: number, text: (start: Date) => string): (at: Date) => string {
  let lastNumber = NaN;
  let last = '';
  return (at) => {
    const number = Math.floor(at.getTime() / periodMs);
    if (number !== lastNumber) [lastNumber, last] = [number, text(new Date(number * periodMs))];
    return last;
  };
}

/** The UTC day of a moment, `YYYY-MM-DD`. */
export const utcDay = periodText(DAY_MS, (start) => start.toISOString().slice(0, 10));

/** The start of a moment's UTC hour, as an ISO timestamp. */
export const utcHour = periodText(HOUR_MS, (start) => start.toISOString());
