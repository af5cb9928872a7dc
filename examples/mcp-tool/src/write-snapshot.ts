#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connect, listAllTools } from './connection.js';
import { canonical, declared, Snapshot } from './snapshot.js';

const usage = `usage: arvis-mcp-snapshot --url <server> --provider <name> --consent <key> [--credentials-file <path>]
       [--prefix <tool name prefix, default: the server's name>] [--data-class <class, default: external>]
       [--timeout-ms <ms, default 10000>] [--max-risk <0..1, default 0.5>] [--out <file, default: mcp-snapshot.json>]
       [--lookup-tool <the server's tool that looks a call up by its idempotency key>]`;

/** Writes the snapshot file from a live server: the remote tool list, as declared now, pinned. */
async function main(): Promise<void> {
  const { values: o } = parseArgs({
    options: {
      url: { type: 'string' },
      'credentials-file': { type: 'string' },
      provider: { type: 'string' },
      consent: { type: 'string' },
      prefix: { type: 'string' },
      'data-class': { type: 'string', default: 'external' },
      'timeout-ms': { type: 'string', default: '10000' },
      'max-risk': { type: 'string', default: '0.5' },
      out: { type: 'string', default: 'mcp-snapshot.json' },
      'lookup-tool': { type: 'string' },
    },
  });
  if (!o.url || !o.provider || !o.consent) throw new Error(usage);
  const client = await connect({ url: o.url, credentialsFile: o['credentials-file'] });
  try {
    const server = client.getServerVersion();
    const tools = (await listAllTools(client)).map(declared).sort((a, b) => (a.name < b.name ? -1 : 1));
    const snapshot = Snapshot.parse({
      snapshotFormatVersion: 1,
      server: { name: server?.name ?? 'unnamed', version: server?.version ?? 'unknown' },
      provider: o.provider,
      consentKey: o.consent,
      dataClass: o['data-class'],
      toolPrefix: o.prefix ?? server?.name ?? 'mcp',
      timeoutMs: Number(o['timeout-ms']),
      maxRisk: Number(o['max-risk']),
      tools,
      ...(o['lookup-tool'] ? { lookupTool: o['lookup-tool'] } : {}),
    });
    writeFileSync(o.out, `${JSON.stringify(JSON.parse(canonical(snapshot)), null, 2)}\n`);
    console.log(`arvis-mcp-snapshot: ${tools.length} tools of ${snapshot.server.name}@${snapshot.server.version} pinned in ${o.out}`);
  } finally {
    await client.close();
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
