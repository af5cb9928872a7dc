import type { ToolDisplayHint, ToolDisplayHints } from '@arvis/tool-catalog';

/**
 * One field of a payload as an approver is shown it: the exact value that will run (its JSON
 * text) and, beside it, the tool's display hint rendered, or why the hint could not be applied
 * (ADR 0069). The exact value is always shown: a wrong hint cannot hide what runs.
 */
export interface RenderedField {
  field: string;
  kind: ToolDisplayHint['kind'];
  exact: string;
  shown: string | null;
  problem: string | null;
}

/** ISO 4217 exponent as the runtime knows it (JPY 0, EUR 2, KWD 3), else 2. */
export function minorUnitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An integer in minor units as major units, with exact integer arithmetic (never a float): 1250000, 2 -> "12,500.00". */
export function formatMinor(amount: number, minorUnits: number): string {
  const negative = amount < 0;
  const digits = BigInt(Math.abs(amount)).toString().padStart(minorUnits + 1, '0');
  const major = digits.slice(0, digits.length - minorUnits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const minor = minorUnits > 0 ? `.${digits.slice(digits.length - minorUnits)}` : '';
  return `${negative ? '-' : ''}${major}${minor}`;
}

const fail = (field: string, hint: ToolDisplayHint, value: unknown, problem: string): RenderedField => ({
  field,
  kind: hint.kind,
  exact: value === undefined ? '(absent)' : JSON.stringify(value),
  shown: null,
  problem,
});

function renderOne(field: string, hint: ToolDisplayHint, payload: Record<string, unknown>): RenderedField {
  const value = payload[field];
  if (value === undefined) return fail(field, hint, value, 'the field is absent');
  const ok = (shown: string): RenderedField => ({ field, kind: hint.kind, exact: JSON.stringify(value), shown, problem: null });
  switch (hint.kind) {
    case 'money': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail(field, hint, value, 'a money amount must be an integer in minor units');
      const currency = hint.currency ?? payload[hint.currencyField!];
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return fail(field, hint, value, `no currency code in ${hint.currencyField ?? 'the hint'}`);
      const units = hint.minorUnits ?? minorUnitsOf(currency);
      return ok(`${currency} ${formatMinor(value, units)} (${units} minor unit${units === 1 ? '' : 's'})`);
    }
    case 'timestamp': {
      const unit = hint.unit ?? 'rfc3339';
      let ms: number;
      if (unit === 'rfc3339') {
        if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return fail(field, hint, value, 'not an RFC 3339 timestamp');
        ms = Date.parse(value);
      } else {
        if (typeof value !== 'number' || !Number.isFinite(value)) return fail(field, hint, value, `not a number of ${unit === 'ms' ? 'milliseconds' : 'seconds'}`);
        ms = unit === 'ms' ? value : value * 1000;
      }
      const date = new Date(ms);
      if (Number.isNaN(date.getTime())) return fail(field, hint, value, 'not a real instant');
      return ok(date.toISOString().replace('T', ' ').replace(/\.000Z$/, 'Z').replace(/Z$/, ' UTC'));
    }
    case 'enum': {
      const key = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
      if (key === null || !Object.prototype.hasOwnProperty.call(hint.labels, key)) return fail(field, hint, value, 'not one of the declared values');
      return ok(hint.labels[key]);
    }
  }
}

/** Every hinted field of a payload, in field-name order; none for a payload that is not an object. */
export function renderDisplayHints(payload: unknown, hints: ToolDisplayHints | undefined): RenderedField[] {
  if (!hints || payload === null || typeof payload !== 'object' || Array.isArray(payload)) return [];
  return Object.keys(hints)
    .sort()
    .map((field) => renderOne(field, hints[field], payload as Record<string, unknown>));
}
