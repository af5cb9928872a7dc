import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The suite's own Kafka clients log every failed reconnect while the broker is down (it is meant
 * to be); those lines go to a file so the progress lines stay readable. Returns their count.
 */
export function divertKafkajsLogs(file: string): () => number {
  mkdirSync(dirname(file), { recursive: true });
  let diverted = 0;
  for (const level of ['info', 'warn', 'error'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('"logger":"kafkajs"')) {
        diverted++;
        appendFileSync(file, `${args[0]}\n`);
        return;
      }
      original(...args);
    };
  }
  return () => diverted;
}
