/** `?waitS=`: whole seconds from 0, capped at `maxS` (a larger ask waits the cap). Absent: 0. */
export function parseWaitS(raw: unknown, maxS: number): { ok: true; waitS: number } | { ok: false; message: string } {
  if (raw === undefined || raw === '') return { ok: true, waitS: 0 };
  if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw)) return { ok: false, message: 'waitS must be a whole number of seconds' };
  return { ok: true, waitS: Math.min(Number(raw), maxS) };
}
