#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { arvisVersion, ConfigError } from '@arvis/config';
import { assembleTools, loadToolPackages } from '@arvis/tool-catalog';
import { loadCliConfig, type CliConfig, type CliNeeds } from './cli.config';
import { parseCommandLine, UsageError, USAGE, type Command } from './cli-args';
import { EXIT } from './exit-codes';
import { createPrinter, type Printer } from './output';
import { describeCatalog, renderCatalog } from './list-catalog/list-catalog.service';
import { renderAdminAnswer, sendAdminRequest } from './administer/administer.service';
import { generateKeys, renderKeys } from './generate-keys/generate-keys';
import { renderDoctor, runDoctor } from './doctor/doctor.service';
import { ListQuarantinedService, renderQuarantined } from './list-quarantined/list-quarantined.service';
import { renderReportHtml } from './report-outcomes/render-html';
import { renderReportText } from './report-outcomes/render-text';
import { ReportOutcomesService } from './report-outcomes/report-outcomes.service';
import { renderReplay, ReplayRunService } from './replay-run/replay-run.service';
import { renderRun, ShowRunService } from './show-run/show-run.service';
import { TailJournalService } from './tail-journal/tail-journal.service';
import { renderVerify, VerifyJournalService } from './verify-journal/verify-journal.service';
import { renderAgainstTopic, renderTopicVerify, VerifyJournalTopicService } from './verify-journal-topic/verify-journal-topic.service';


/**
 * Plain `pg` with SQL, not Prisma: every query here is a read (the CLI never changes the
 * record), and Prisma's client cannot load inside jest's module sandbox, where the command
 * services are exercised. `default_transaction_read_only` makes the server refuse any write
 * this process might attempt, so read-only is enforced, not just intended.
 */
function readOnlyPool(config: CliConfig): Pool {
  if (config.databaseUrl === undefined) throw new Error('this command needs DATABASE_URL');
  const pool = new Pool({ connectionString: config.databaseUrl, max: 2, application_name: 'arvis-cli', options: '-c default_transaction_read_only=on' });
  // A dropped idle connection must not kill a long `tail`; the next query reports the outage.
  // (Inline, not @arvis/persistence: that would load Prisma's client, see above.)
  // Checked-out clients too: see handlePoolErrors in libs/persistence/src/pg-errors.ts.
  pool.on('connect', (client) => client.on('error', (e: Error) => process.stderr.write(`database connection lost: ${e.message}\n`)));
  pool.on('error', () => undefined);
  return pool;
}

async function withPool<T>(config: CliConfig, use: (db: Pool) => Promise<T>): Promise<T> {
  const db = readOnlyPool(config);
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

/** Tables on stdout (or JSON), and with --html one page written to the named file. */
async function reportOutcomes(db: Pool, command: Extract<Command, { name: 'report' }>, out: Printer): Promise<number> {
  const report = await new ReportOutcomesService(db).report(command.since, command.until);
  if ('problem' in report) {
    out.error(report.problem);
    return EXIT.usage;
  }
  if (command.htmlFile !== undefined) {
    writeFileSync(command.htmlFile, renderReportHtml(report));
    out.error(`report page written to ${command.htmlFile}`);
  }
  if (out.json) out.jsonLine(report);
  else renderReportText(report).forEach((l) => out.line(l));
  return EXIT.ok;
}

async function execute(command: Exclude<Command, { name: 'help' | 'version' | 'keys' | 'doctor' }>, config: CliConfig, out: Printer): Promise<number> {
  const print: Print = (doc, lines) => (out.json ? out.jsonLine(doc) : lines().forEach((l) => out.line(l)));
  switch (command.name) {
    case 'tail': {
      const stop = new AbortController();
      const abort = () => stop.abort();
      process.once('SIGINT', abort);
      process.once('SIGTERM', abort);
      try {
        await new TailJournalService(config.kafka, config.topics.journal, out).tail(command, stop.signal);
      } finally {
        process.off('SIGINT', abort);
        process.off('SIGTERM', abort);
      }
      return EXIT.ok;
    }
    case 'run':
      return withPool(config, async (db) => {
        const view = await new ShowRunService(db).show(command.runId);
        if (!view) {
          print({ runId: command.runId, known: false }, () => [`unknown run: ${command.runId}`]);
          return EXIT.unknownRun;
        }
        print(view, () => renderRun(view));
        return EXIT.ok;
      });
    case 'replay':
      return withPool(config, async (db) => {
        const report = await new ReplayRunService(db).replay(command.runId);
        if (!report.known) {
          print(report, () => [`unknown run: ${command.runId}`]);
          return EXIT.unknownRun;
        }
        print(report, () => renderReplay(report));
        return report.matches ? EXIT.ok : EXIT.broken;
      });
    case 'verify':
      return verify(command.source, config, print);
    case 'catalog': {
      // The same packages, loaded the same way, as the authorizer and the dispatchers.
      const view = describeCatalog(assembleTools(loadToolPackages(config.toolPackages)));
      print(view, () => renderCatalog(view));
      return EXIT.ok;
    }
    case 'outbox':
      return withPool(config, async (db) => {
        const rows = await new ListQuarantinedService(db).list();
        print({ quarantined: rows }, () => renderQuarantined(rows));
        return EXIT.ok;
      });
    case 'report':
      return withPool(config, (db) => reportOutcomes(db, command, out));
    case 'admin': {
      const answer = await sendAdminRequest(config.admin!.url, config.admin!.token, command.request);
      print(answer, () => renderAdminAnswer(command.request, answer));
      return answer.status >= 200 && answer.status < 300 ? EXIT.ok : answer.status >= 400 && answer.status < 500 ? EXIT.refused : EXIT.usage;
    }
  }
}

type Print = (doc: unknown, lines: () => string[]) => void;

/** The checks on stdout, one line each (or one JSON document); exit 2 when any failed. */
async function doctor(command: Extract<Command, { name: 'doctor' }>, out: Printer): Promise<number> {
  // In a checkout the project's migrations sit beside the build; a packed CLI is given --migrations.
  const migrationsDir = command.migrationsDir ?? join(__dirname, '..', '..', '..', '..', 'prisma', 'migrations');
  const checks = await runDoctor({ envFiles: command.envFiles, migrationsDir, maxClockSkewMs: command.maxClockSkewMs });
  const failed = checks.filter((c) => c.status === 'fail').map((c) => c.name);
  if (out.json) out.jsonLine({ ok: failed.length === 0, failed, checks });
  else renderDoctor(checks).forEach((l) => out.line(l));
  return failed.length ? EXIT.broken : EXIT.ok;
}

async function verify(source: Extract<Command, { name: 'verify' }>['source'], config: CliConfig, print: Print): Promise<number> {
  const topic = () => new VerifyJournalTopicService(config.kafka, config.topics.journal, config.checkpointKeys);
  if (source === 'topic') {
    const report = await topic().fromTopic();
    print(report, () => renderTopicVerify(report));
    return report.intact ? EXIT.ok : EXIT.broken;
  }
  return withPool(config, async (db) => {
    if (source === 'database-against-topic') {
      const report = await topic().againstTopic(db);
      print(report, () => renderAgainstTopic(report));
      return report.intact ? EXIT.ok : EXIT.broken;
    }
    const report = await new VerifyJournalService(db).verify();
    print(report, () => renderVerify(report));
    return report.intact ? EXIT.ok : EXIT.broken;
  });
}

/** What the command reads: catalog, tail and --from-topic need no database; the topic checks need the public keys. */
function needsOf(command: Exclude<Command, { name: 'help' | 'version' | 'keys' | 'doctor' }>): CliNeeds {
  const source = command.name === 'verify' ? command.source : undefined;
  return {
    database: command.name !== 'tail' && command.name !== 'catalog' && command.name !== 'admin' && source !== 'topic',
    checkpointKeys: source === 'topic' || source === 'database-against-topic',
    admin: command.name === 'admin',
  };
}

async function main(argv: string[]): Promise<number> {
  const wantsJson = argv.includes('--json');
  try {
    const { command, json } = parseCommandLine(argv);
    const out = createPrinter(json);
    if (command.name === 'help') {
      out.line(USAGE);
      return EXIT.ok;
    }
    if (command.name === 'version') {
      if (out.json) out.jsonLine({ version: arvisVersion() });
      else out.line(`arvis ${arvisVersion()}`);
      return EXIT.ok;
    }
    if (command.name === 'keys') {
      // Reads no configuration: keys are made before there is a deployment to configure.
      const keys = generateKeys(command.kind, command.keyId);
      if (out.json) out.jsonLine(keys);
      else renderKeys(keys).forEach((l) => out.line(l));
      return EXIT.ok;
    }
    if (command.name === 'doctor') return await doctor(command, out);
    return await execute(command, loadCliConfig(undefined, needsOf(command)), out);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      createPrinter(wantsJson).error(e instanceof UsageError ? `${e.message}\n\n${USAGE}` : e.message);
      return EXIT.usage;
    }
    throw e;
  }
}

// `npm run cli -- verify | head`: a reader that goes away is not an error of the CLI.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    // exitCode, not exit(): stdout is flushed before the process ends.
    process.exitCode = code;
  },
  (e: unknown) => {
    // An unreachable database or broker: one line the analyst can act on, not a stack trace.
    process.stderr.write(`arvis-cli: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = EXIT.usage;
  },
);
