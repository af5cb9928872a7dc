import type { VerificationKeyring } from '@arvis/crypto';
import type { Pool } from 'pg';
import type { KafkaConnection } from '@arvis/kafka';
import { compareWithDatabase, type DatabaseComparison } from './compare-with-database';
import { readJournalTopic } from './read-journal-topic';
import { checkTopicChains, type TopicReport } from './topic-chain';
import { TopicCollector } from './topic-copy';

/** A chain's summary as reported: the per-seq maps the comparison uses stay inside. */
type ReportedChain = Omit<TopicReport['chains'][number], 'hashes' | 'signed'>;
type ReportedTopic = Omit<TopicReport, 'chains'> & { chains: ReportedChain[] };

export type TopicVerifyReport = ReportedTopic & { source: 'topic' };

const reported = (r: TopicReport): ReportedTopic => ({ ...r, chains: r.chains.map(({ hashes: _h, signed: _s, ...rest }) => rest) });

export interface AgainstTopicReport {
  source: 'database-against-topic';
  intact: boolean;
  /** The first bad seq of the database, when there is one (the topic's own findings come after). */
  firstBreak: string | null;
  database: DatabaseComparison;
  topic: ReportedTopic;
}

/**
 * `verify --from-topic` and `verify --against-topic` (ADR 0026): the journal topic as the
 * analysts' independent copy, checked with the checkpoint public keys alone.
 */
export class VerifyJournalTopicService {
  constructor(
    private readonly connection: KafkaConnection,
    private readonly topic: string,
    private readonly keyring: VerificationKeyring,
  ) {}

  /** Needs no database: the topic, deduplicated and ordered by journalSeq, and the public keys. */
  async fromTopic(): Promise<TopicVerifyReport> {
    return { source: 'topic', ...reported(await this.readTopic()) };
  }

  /** The database's chain compared with the signed checkpoints and entry copies on the topic. */
  async againstTopic(db: Pool): Promise<AgainstTopicReport> {
    const topic = await this.readTopic();
    const database = await compareWithDatabase(db, topic.chains);
    const firstBreak = database.findings[0]?.message ?? topic.firstBreak;
    return { source: 'database-against-topic', intact: database.findings.length === 0 && topic.intact, firstBreak, database, topic: reported(topic) };
  }

  private async readTopic(): Promise<TopicReport> {
    const collector = new TopicCollector(this.keyring);
    await readJournalTopic(this.connection, this.topic, (value, at) => collector.add(value, at));
    return checkTopicChains(collector);
  }
}

export function renderTopicVerify(r: TopicVerifyReport): string[] {
  const lines = [`journal topic: ${r.records} records read, ${r.duplicates} duplicate copies dropped`, ...chainLines(r)];
  for (const f of r.findings) lines.push(f.message);
  lines.push(r.intact ? 'verify --from-topic: journal topic intact' : `verify --from-topic: BROKEN (first: ${r.firstBreak})`);
  return lines;
}

export function renderAgainstTopic(r: AgainstTopicReport): string[] {
  const d = r.database;
  const lines = [
    `database: ${d.rowsChecked} rows checked (through journal_seq ${d.lastSeq}), ${d.checkpointsCompared} signed checkpoints and ${d.topicCopiesCompared} topic copies compared`,
    ...chainLines(r.topic),
  ];
  for (const f of d.findings) lines.push(`database: ${f.message}`);
  for (const f of r.topic.findings) lines.push(`topic: ${f.message}`);
  if (d.checkpointsCompared === 0) lines.push('note: no signed checkpoint covers the database yet; only the topic copies were compared');
  lines.push(r.intact ? 'verify --against-topic: the database matches the signed topic' : `verify --against-topic: BROKEN (first: ${r.firstBreak})`);
  return lines;
}

function chainLines(r: ReportedTopic): string[] {
  return r.chains.map((c) => {
    const range = c.firstSeq === null ? 'no entries' : `journal_seq ${c.firstSeq}..${c.lastSeq}`;
    const signed = c.signedThrough === null ? 'none signed yet' : `signed through ${c.signedThrough}`;
    return `chain ${c.chain}: ${c.entries} entries (${range}), anchored on ${c.anchor ?? 'nothing'}, ${c.checkpoints} checkpoints, ${signed}, ${c.unsigned} not yet signed`;
  });
}
