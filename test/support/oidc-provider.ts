import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DATA } from './services';

export interface OidcProviderSetup {
  clients: { clientId: string; clientSecret: string; redirectUri: string }[];
  /** Each login's claims (beside `sub`, the login itself). */
  accounts: Record<string, Record<string, unknown>>;
}

/** The OpenID provider of oidc-provider.mjs, running in its own process. */
export class OidcProvider {
  private constructor(
    readonly issuer: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(setup: OidcProviderSetup, name: string): Promise<OidcProvider> {
    const child = spawn(process.execPath, [join(__dirname, 'oidc-provider.mjs'), JSON.stringify(setup)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.pipe(createWriteStream(join(DATA, 'test-logs', `${name}.log`), { flags: 'a' }));
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code}) before it listened; see ${name}.log`)));
    });
    return new OidcProvider((JSON.parse(first) as { issuer: string }).issuer, child);
  }

  /** The next ID token the provider hands out carries these claims instead (a provider that errs). */
  async tamperNextIdToken(claims: Record<string, string>): Promise<void> {
    const res = await fetch(`${this.issuer}/test/tamper-next-id-token?${new URLSearchParams(claims).toString()}`, { method: 'POST' });
    if (res.status !== 204) throw new Error(`tamper hook answered ${res.status}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
