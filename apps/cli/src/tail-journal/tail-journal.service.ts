import { createKafka, type KafkaConnection } from '@arvis/kafka';
import type { TailFilter } from '../cli-args';
import { entryLine, type Printer } from '../output';
import { matchesFilter, readTailedEntry, ChainSeqDeduper } from './entry-filter';

export interface TailOptions {
  filter: TailFilter;
  fromBeginning: boolean;
  limit?: number;
}

/**
 * Follows the journal topic (the analysts' copy of the journal table) in a throwaway consumer
 * group, so tailing never moves the offsets of a real consumer, and deletes that group when done.
 */
export class TailJournalService {
  constructor(
    private readonly connection: KafkaConnection,
    private readonly topic: string,
    private readonly printer: Printer,
  ) {}

  /** Resolves with the number of entries printed, after --limit entries or when `stop` aborts. */
  async tail(opts: TailOptions, stop: AbortSignal): Promise<number> {
    const kafka = createKafka({ ...this.connection, clientId: 'arvis-cli' });
    const groupId = `arvis-cli-tail-${process.pid}-${Date.now()}`;
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, allowAutoTopicCreation: false });
    const seen = new ChainSeqDeduper();
    let printed = 0;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const onAbort = () => finish();
    stop.addEventListener('abort', onAbort, { once: true });
    if (stop.aborted) finish();

    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [this.topic], fromBeginning: opts.fromBeginning });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (opts.limit !== undefined && printed >= opts.limit) return;
          const entry = readTailedEntry(message.value);
          // A signed checkpoint is not an entry: it is neither printed nor counted toward --limit.
          if (entry === 'checkpoint') return;
          if (!entry) {
            this.printer.error(`skipped an unreadable message at offset ${message.offset}`);
            return;
          }
          if (!seen.firstTime(entry.chain, entry.journalSeq) || !matchesFilter(entry, opts.filter)) return;
          if (this.printer.json) this.printer.jsonLine(entry);
          else this.printer.line(entryLine(entry));
          printed++;
          // Stopping is done outside the handler: disconnecting from inside it would wait on itself.
          if (opts.limit !== undefined && printed >= opts.limit) finish();
        },
      });
      await finished;
    } finally {
      stop.removeEventListener('abort', onAbort);
      await consumer.disconnect();
      await this.deleteGroup(kafka, groupId);
    }
    return printed;
  }

  private async deleteGroup(kafka: ReturnType<typeof createKafka>, groupId: string): Promise<void> {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.deleteGroups([groupId]);
    } catch {
      // Best effort: an empty group left behind expires on the broker by itself.
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
