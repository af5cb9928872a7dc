import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { loadEd25519PrivateKey, loadEd25519PublicKey } from '@arvis/crypto';
import type { TrustedIssuer } from '../../../authorizer/src/config/authorizer.config';

export type CheckStatus = 'ok' | 'fail' | 'skip';
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
export const fail = (name: string, detail: string): Check => ({ name, status: 'fail', detail });
export const skip = (name: string, detail: string): Check => ({ name, status: 'skip', detail });

/**
 * The database's clock against this machine's: the database read its clock somewhere within the
 * round trip, so the skew is measured from its middle and is known to ± half the round trip.
 */
export function clockSkewCheck(name: string, t: { databaseMs: number; sentAtMs: number; answeredAtMs: number }, maxSkewMs: number): Check {
  const skew = t.databaseMs - (t.sentAtMs + t.answeredAtMs) / 2;
  const within = Math.ceil((t.answeredAtMs - t.sentAtMs) / 2);
  const side = skew > 0 ? 'ahead of' : 'behind';
  const detail = `the database's clock is ${Math.round(Math.abs(skew))} ms (± ${within}) ${side} this machine's`;
  return Math.abs(skew) > maxSkewMs ? fail(name, `${detail}: more than ${maxSkewMs} ms (--max-clock-skew-ms); synchronise the hosts' clocks (NTP)`) : ok(name, `${detail}; at most ${maxSkewMs} ms allowed`);
}

/** Both keys as spki DER, so a PEM and a base64 DER of one key compare equal. */
const spkiOfPrivate = (privateKey: string) => createPublicKey(loadEd25519PrivateKey(privateKey)).export({ type: 'spki', format: 'der' }).toString('base64');
const spkiOfPublic = (publicKey: string) => loadEd25519PublicKey(publicKey).export({ type: 'spki', format: 'der' }).toString('base64');

function matches(privateKey: string, publicKey: string): boolean {
  try {
    return spkiOfPrivate(privateKey) === spkiOfPublic(publicKey);
  } catch {
    return false;
  }
}

export interface Signer {
  service: string;
  keyId: string;
  privateKey: string;
}

/** The authorizer's intent signing key, by id and by value, among each dispatcher's verification keys. */
export function intentKeyCheck(signer: Signer | undefined, dispatchers: { service: string; keys: Record<string, string> }[]): Check {
  const name = 'intent keys';
  if (!signer || dispatchers.length === 0) return skip(name, 'needs an authorizer and a dispatcher configuration');
  const problems = dispatchers.flatMap((d) => {
    const pem = d.keys[signer.keyId];
    if (pem === undefined) return [`the ${d.service} has no key ${signer.keyId} (it accepts ${Object.keys(d.keys).join(', ') || 'none'}): every intent would be dead-lettered`];
    return matches(signer.privateKey, pem) ? [] : [`the ${d.service}'s key ${signer.keyId} is not the public half of the ${signer.service}'s signing key: every intent would be dead-lettered`];
  });
  return problems.length ? fail(name, problems.join('; ')) : ok(name, `the ${signer.service} signs as ${signer.keyId}; ${dispatchers.map((d) => `the ${d.service}`).join(', ')} verif${dispatchers.length > 1 ? 'y' : 'ies'} it`);
}

/** One checkpoint key among the processes that may run the relay, and its public half with the analysts. */
export function checkpointKeyCheck(signers: Signer[], verifiers: Record<string, string> | undefined): Check {
  const name = 'checkpoint keys';
  if (signers.length === 0) return skip(name, 'no configuration holds a checkpoint signing key: no checkpoints are written');
  const [first] = signers;
  const other = signers.find((s) => s.keyId !== first.keyId || !matches(s.privateKey, verifiersKey(first)));
  if (other) return fail(name, `the ${first.service} signs checkpoints as ${first.keyId}, the ${other.service} as ${other.keyId} with another key: whichever runs the relay signs`);
  if (!verifiers) return ok(name, `${signers.map((s) => `the ${s.service}`).join(', ')} sign as ${first.keyId} (no --cli-env: the analysts' public half not checked)`);
  const pem = verifiers[first.keyId];
  if (pem === undefined) return fail(name, `the analysts' JOURNAL_CHECKPOINT_VERIFICATION_KEYS has no key ${first.keyId} (it has ${Object.keys(verifiers).join(', ') || 'none'})`);
  if (!matches(first.privateKey, pem)) return fail(name, `the analysts' key ${first.keyId} is not the public half of the checkpoint signing key`);
  return ok(name, `${signers.map((s) => `the ${s.service}`).join(', ')} sign as ${first.keyId}; the analysts verify it`);
}

/** A PEM public key standing for a signer's own key, to compare the others with. */
const verifiersKey = (s: Signer) => createPublicKey(loadEd25519PrivateKey(s.privateKey)).export({ type: 'spki', format: 'pem' }).toString();

function importable(keys: unknown): string | undefined {
  if (!Array.isArray(keys) || keys.length === 0) return 'no keys';
  for (const k of keys as JsonWebKey[]) {
    try {
      createPublicKey({ key: k, format: 'jwk' });
    } catch (e) {
      return `key ${(k as { kid?: string }).kid ?? '(no kid)'}: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/** Each trusted issuer's keys load: its PEM, its JWKS file, or its JWKS URL answering with keys. */
export async function issuerCheck(iss: TrustedIssuer, timeoutMs = 5000): Promise<Check> {
  const name = `trusted issuer ${iss.issuer}`;
  if (iss.secret !== undefined) return ok(name, 'HS256 shared secret (local use only)');
  if (iss.publicKey !== undefined) {
    try {
      createPublicKey(iss.publicKey);
      return ok(name, 'publicKey loads');
    } catch (e) {
      return fail(name, `publicKey does not load: ${(e as Error).message}`);
    }
  }
  if (iss.jwks !== undefined) {
    const problem = importable(iss.jwks.keys);
    return problem ? fail(name, `jwksFile ${iss.jwksFile}: ${problem}`) : ok(name, `jwksFile ${iss.jwksFile}: ${iss.jwks.keys.length} key(s)`);
  }
  try {
    const res = await fetch(iss.jwksUri!, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!res.ok) return fail(name, `jwksUri ${iss.jwksUri} answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    const problem = importable(body.keys);
    return problem ? fail(name, `jwksUri ${iss.jwksUri}: ${problem}`) : ok(name, `jwksUri ${iss.jwksUri}: ${(body.keys as unknown[]).length} key(s)`);
  } catch (e) {
    return fail(name, `jwksUri ${iss.jwksUri} does not answer: ${(e as Error).message}`);
  }
}

/** What the front door's audience check needs of the authorizer's issuers: the decisions audience per issuer. */
export interface DecisionAudiences {
  issuer: string;
  decisions?: readonly string[];
}

/**
 * The MCP front door and the authorizer must agree on the front door's URI (ADR 0074): each issuer
 * the front door accepts is trusted by the authorizer with that URI as its decisions audience, or
 * every call it forwards is refused there (dead-lettered) after the front door let it in.
 */
export function mcpAudienceCheck(mcp: { resourceUri: string; issuers: readonly { issuer: string }[] }, authorizer: readonly DecisionAudiences[] | undefined): Check {
  const name = 'mcp audience';
  if (!authorizer) return skip(name, 'needs --authorizer-env too');
  const problems = mcp.issuers.flatMap(({ issuer }) => {
    const trusted = authorizer.find((a) => a.issuer === issuer);
    if (!trusted) return [`${issuer} is not a trusted issuer of the authorizer (TRUSTED_ISSUERS)`];
    if (!trusted.decisions?.includes(mcp.resourceUri)) {
      return [`${issuer}'s audience.decisions (${trusted.decisions?.join(', ') ?? 'none: any aud'}) does not name MCP_RESOURCE_URI ${mcp.resourceUri}`];
    }
    return [];
  });
  return problems.length ? fail(name, problems.join('; ')) : ok(name, `${mcp.resourceUri} is the decisions audience of ${mcp.issuers.map((i) => i.issuer).join(', ')}`);
}

/** The results API the front door reads with callers' tokens answers (401 to a request without one: it is there, and guarded). */
export async function resultsApiCheck(authorizerUrl: string, timeoutMs = 5000): Promise<Check> {
  const name = 'mcp results API';
  const url = `${authorizerUrl}/decisions/arvis-doctor-probe`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return res.status === 401 ? ok(name, `${authorizerUrl} answers (401 without a token)`) : fail(name, `${url} answered ${res.status}, not the authorizer's 401 without a token (AUTHORIZER_URL)`);
  } catch (e) {
    return fail(name, `AUTHORIZER_URL ${authorizerUrl} does not answer: ${(e as Error).message}`);
  }
}
