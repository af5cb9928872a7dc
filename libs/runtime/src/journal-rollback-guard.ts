import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { readDatabaseHeads, rollbackVerdictOfChains, topicHeadsOf, type RollbackVerdict, type TopicHead } from '@arvis/journal';
import { JOURNAL_HEAD_READER_GROUP_PREFIX, readTopic } from '@arvis/kafka';
import { Database, untilDatabaseAnswers } from '@arvis/persistence';
import { PeriodicTask } from './periodic-task';
import { SERVICE_SETTINGS, type ServiceSettings } from './service-runtime';


/** Per partition, the newest records read: the head is among them even after a late re-publish. */
const TAIL_RECORDS = 100;
/** While refusing, how often the verdict is looked at again (an operator reconciles meanwhile). */
const RECHECK_MS = 2000;

/**
 * A database restored from an older dump holds capabilities `minted` again whose decisions the
 * journal topic shows already ran: work on it would run them a second time. At start-up (in
 * onModuleInit, before the periodic workers and consumers start) this compares the journal
 * topic's newest entry with the database's journal; the topic is a copy published only after
 * commit, so it can never be ahead of an intact database. Until they agree, the service does no
 * work: readiness answers 503 with the verdict, the consumers handle no slice, the periodic
 * workers skip their passes and the API refuses acts that would append to the journal, until an
 * operator reconciles (ADR 0055). The relay runs: what it publishes was committed before the
 * dump (copies the topic has, intents the gated dispatchers will not run). Not on the hot path:
 * one boolean per slice; nothing per decision.
 */
@Injectable()
export class JournalRollbackGuard implements OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('JournalRollback');
  /** Undefined until the first check: no verdict yet, no work. */
  private current?: RollbackVerdict;
  /** The topic's head of each chain it holds (ADR 0062: each chain is judged on its own). */
  private topicHeads = new Map<string, TopicHead>();
  private readonly recheck: PeriodicTask;
  private rechecking = false;

  constructor(
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
    private readonly db: Database,
  ) {
    this.recheck = new PeriodicTask('journal rollback check', RECHECK_MS, () => this.pass(), this.log);
  }

  get verdict(): RollbackVerdict {
    return this.current ?? { state: 'journal_topic_unread', detail: 'not checked yet' };
  }

  get open(): boolean {
    return this.current?.state === 'consistent';
  }

  async onModuleInit(): Promise<void> {
    // Started while PostgreSQL restarts: wait for it rather than exit (the comparison reads it).
    await untilDatabaseAnswers(
      () => this.check(),
      (attempt, e) => this.log.warn({ msg: 'database not answering at start-up, waiting', what: 'journal rollback check', attempt, error: e.message }),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recheck.stop();
  }

  /** Reads the topic's head again, then compares it with the database's (start-up, rebind, reconcile). */
  async check(): Promise<RollbackVerdict> {
    const topic = this.settings.topics?.journal;
    if (!topic || this.settings.rollbackCheck === false) return this.settle({ state: 'consistent' });
    try {
      const records = await readTopic(this.settings.kafka, topic, {
        groupPrefix: JOURNAL_HEAD_READER_GROUP_PREFIX,
        clientId: `${this.settings.kafka.clientId}-journal-head`,
        tail: TAIL_RECORDS,
        timeoutMs: 20_000,
        // A broker down at start-up fails the read at once: the recheck reads it again, and the
        // consumers meanwhile start (and wait for the broker) as they would, handling nothing.
        connectRetries: 0,
      });
      this.topicHeads = topicHeadsOf(records.map((r) => r.value));
    } catch (e) {
      return this.settle({ state: 'journal_topic_unread', detail: `the journal topic could not be read: ${(e as Error).message}` });
    }
    return this.compare();
  }

  /** The database against the topic head last read: cheap, for the recheck while refusing. */
  private async compare(): Promise<RollbackVerdict> {
    const seqs = new Map([...this.topicHeads].map(([chain, h]) => [chain, h.seq]));
    const db = await readDatabaseHeads(this.db, seqs);
    return this.settle(rollbackVerdictOfChains(this.topicHeads, db));
  }

  private async pass(): Promise<void> {
    // An unread topic is read again; a known head is only compared with the database again.
    if (this.current?.state !== 'journal_rolled_back' && this.current?.state !== 'journal_diverged') await this.check();
    else await this.compare();
  }

  private settle(verdict: RollbackVerdict): RollbackVerdict {
    const was = this.current?.state;
    this.current = verdict;
    if (verdict.state !== was) {
      if (verdict.state === 'consistent') this.log.log('the database\'s journal holds the journal topic\'s head: working');
      else this.log.error({ msg: 'refusing to work', reasonCode: verdict.state, detail: verdict.state === 'journal_topic_unread' ? verdict.detail : describeVerdict(verdict) });
    }
    if (verdict.state === 'consistent') {
      if (this.rechecking) void this.recheck.stop();
      this.rechecking = false;
    } else if (!this.rechecking) {
      this.rechecking = true;
      this.recheck.start();
    }
    return verdict;
  }
}

/** One sentence for the log and the readiness answer. */
export function describeVerdict(v: RollbackVerdict): string {
  switch (v.state) {
    case 'consistent':
      return 'the database\'s journal holds the journal topic\'s head';
    case 'journal_topic_unread':
      // The reader's error (broker addresses) is in the log, not in an answer.
      return 'the journal topic could not be read yet, so the database cannot be compared with it (see the log)';
    case 'journal_rolled_back':
      return `the database's journal ends at ${v.chain}@${v.databaseSeq}, the journal topic holds entries up to ${v.topicSeq}: the database was restored from an older copy; an operator reconciles (POST /admin/store/reconcile-rollback)`;
    case 'journal_diverged':
      return `the database's journal holds another entry at ${v.chain}@${v.topicSeq} than the journal topic: the chains forked after a restore; see docs/operations.md`;
  }
}
