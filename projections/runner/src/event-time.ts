/**
 * Event time from an envelope's `timestamp`, in ms since the epoch (NaN when unreadable, as
 * `Date.parse` answers).
 *
 * A rebuild reads the time of every line, and `Date.parse` costs most of a microsecond a
 * call, more than the rest of what the runner does per event. The trace writer always writes
 * `Date.prototype.toISOString()`'s form, `YYYY-MM-DDTHH:MM:SS.sssZ`, so that form is read
 * here digit by digit; anything else (another offset, no milliseconds, a day past the 28th,
 * which would need the month's length checked, a year before 1970) goes to `Date.parse`, so
 * the answer is always the one `Date.parse` gives.
 */

const ZERO = 48;

/** The decimal number in `text[from, from + count)`, or -1 when one of those is not a digit. */
function digits(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

export function parseEventTime(text: string): number {
  if (
    text.length === 24 &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 && // T
    text.charCodeAt(13) === 58 && // :
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(19) === 46 && // .
    text.charCodeAt(23) === 90 // Z
  ) {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hour = digits(text, 11, 2);
    const minute = digits(text, 14, 2);
    const second = digits(text, 17, 2);
    const ms = digits(text, 20, 3);
    if (year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && ms >= 0) {
      return Date.UTC(year, month - 1, day, hour, minute, second, ms);
    }
  }
  return Date.parse(text);
}
