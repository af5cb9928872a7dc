/** Exit codes: scripts tell "tampered" from "could not run" from "no such run". */
export const EXIT = { ok: 0, usage: 1, broken: 2, unknownRun: 3, refused: 4 } as const;

const MEANING: Record<keyof typeof EXIT, string> = {
  ok: 'ok',
  usage: 'usage or configuration error',
  broken: 'tampering or mismatch found, or a doctor check failed',
  unknownRun: 'unknown run',
  refused: 'the admin API refused the act',
};

/** The one sentence the usage text and the READMEs give (a spec holds the READMEs to it). */
export const EXIT_CODES_TEXT = `Exit codes: ${(Object.keys(EXIT) as (keyof typeof EXIT)[]).map((k) => `${EXIT[k]} ${MEANING[k]}`).join(', ')}.`;
