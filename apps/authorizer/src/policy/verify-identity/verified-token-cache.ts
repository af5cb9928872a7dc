import type { JWTHeaderParameters, JWTPayload } from 'jose';

/**
 * What a token's full verification established, kept so the same token is not verified again
 * (ADR 0047): its header and claims as jose returned them, the issuer entry that verified it, and
 * the key object its key set resolved (for a JWKS URL, the sign that the set has not been fetched
 * again since). Not the token itself: the cache is keyed by its SHA-256.
 */
export interface VerifiedToken<Issuer = unknown> {
  header: JWTHeaderParameters;
  payload: JWTPayload;
  issuer: Issuer;
  key: unknown;
}

type Entry<I> = { settled: VerifiedToken<I> } | { pending: Promise<VerifiedToken<I> | undefined> };

/** exp/nbf as jose judges them (whole seconds, `skewS` of tolerance), so a hit expires when a full verification would refuse. */
export function stillValid(payload: JWTPayload, now: Date, skewS: number): boolean {
  const nowS = Math.floor(now.getTime() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp <= nowS - skewS) return false;
  return typeof payload.nbf !== 'number' || payload.nbf <= nowS + skewS;
}

/**
 * Verified tokens by SHA-256, at most `maxEntries` (the least recently used goes first), none used
 * past its `exp`. A verification under way is shared: the decisions of one slice that carry the
 * same token wait for one signature check instead of each doing their own. Only success is kept;
 * a waiter on a verification that failed verifies the token itself, as without the cache.
 */
export class VerifiedTokenCache<I = unknown> {
  private readonly entries = new Map<string, Entry<I>>();

  constructor(
    private readonly maxEntries: number,
    private readonly skewS: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Undefined at once when nothing is cached (so the caller can start the verification and
   * `remember` it before anything else runs); else the verified token if still valid at `now`
   * (an expired entry is dropped).
   */
  lookup(sha256: string, now: Date): Promise<VerifiedToken<I> | undefined> | undefined {
    const entry = this.entries.get(sha256);
    return entry && this.settle(sha256, entry, now);
  }

  private async settle(sha256: string, entry: Entry<I>, now: Date): Promise<VerifiedToken<I> | undefined> {
    const verified = 'settled' in entry ? entry.settled : await entry.pending;
    if (!verified) return undefined;
    if (!stillValid(verified.payload, now, this.skewS)) {
      if (this.entries.get(sha256) === entry) this.entries.delete(sha256);
      return undefined;
    }
    if ('settled' in entry && this.entries.get(sha256) === entry) {
      // Most recently used moves to the end: the bound evicts from the front.
      this.entries.delete(sha256);
      this.entries.set(sha256, entry);
    }
    return verified;
  }

  /** Keeps `verifying` under `sha256` while it runs, and what it established if it succeeds. */
  remember(sha256: string, verifying: Promise<VerifiedToken<I> | undefined>): void {
    if (this.maxEntries === 0) return;
    const entry: Entry<I> = { pending: verifying };
    this.entries.delete(sha256);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(sha256, entry);
    verifying.then(
      (v) => {
        if (this.entries.get(sha256) !== entry) return;
        if (v) this.entries.set(sha256, { settled: v });
        else this.entries.delete(sha256);
      },
      () => this.entries.get(sha256) === entry && this.entries.delete(sha256),
    );
  }

  /** Drops an entry whose key no longer resolves to the same key object (a key set fetched again). */
  forget(sha256: string): void {
    this.entries.delete(sha256);
  }
}
