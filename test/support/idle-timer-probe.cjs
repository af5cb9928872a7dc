// Run as a child process by idle-kafka-client-arms-no-timers.e2e-spec.ts: connects a Kafka client
// (kafkajs itself, or the packed @arvis/decision-client), proves a message goes through, stays idle
// for IDLE_MS while counting timers, proves a message still goes through, and prints the counts.
// Usage: node idle-timer-probe.cjs kafkajs|apps|client <folder to resolve packages from> <broker> <topic prefix>
const { createHook } = require('node:async_hooks');
const { createRequire } = require('node:module');
const { join } = require('node:path');

const [mode, from, broker, prefix] = process.argv.slice(2);
const load = createRequire(join(from, 'package.json'));
const IDLE_MS = 3000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(done) {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('a message sent was not received within 30 s');
    await sleep(50);
  }
}

/** A producer and a consumer of kafkajs, as resolved from `from`, on the journal topic of `prefix`. */
async function kafkajsPair() {
  const { Kafka, logLevel } = load('kafkajs');
  const kafka = new Kafka({ brokers: [broker], clientId: 'idle-probe', logLevel: logLevel.WARN });
  const topic = `${prefix}arvis.journal`;
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const consumer = kafka.consumer({ groupId: `${prefix}idle-probe-${process.pid}`, allowAutoTopicCreation: false });
  let received = 0;
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const joined = new Promise((r) => consumer.on(consumer.events.GROUP_JOIN, r));
  await consumer.run({ eachMessage: async () => void received++ });
  await joined;
  return {
    send: (n) => producer.send({ topic, acks: -1, messages: [{ key: 'k', value: `message ${n}` }] }),
    received: () => received,
    close: () => Promise.all([producer.disconnect(), consumer.disconnect()]),
  };
}

/** The packed client's DecisionClient and JournalWatcher; a dead letter is what the watcher reads back. */
async function clientPair() {
  const { DecisionClient, JournalWatcher, prefixedTopics } = load('@arvis/decision-client');
  const topics = prefixedTopics(prefix);
  const watcher = new JournalWatcher([broker], topics);
  await watcher.start();
  const client = new DecisionClient([broker], topics);
  return {
    send: (n) => client.sendRaw(topics.decisionsDlq, [{ key: 'k', value: JSON.stringify({ decisionId: `idle-probe:${n}` }) }]),
    received: () => watcher.deadLetters.length,
    close: () => Promise.all([client.close(), watcher.stop()]),
  };
}

/**
 * Timers created, timer callbacks run (intervals included) and timers created by kafkajs's request
 * queue, while counting. Enabled before the client connects, so that timers armed earlier (kafkajs's
 * request-timeout interval) are known as timers when they fire.
 */
function countTimers() {
  const counts = { armed: 0, wakeUps: 0, armedByRequestQueue: 0 };
  const timers = new Set();
  let counting = false;
  createHook({
    init(id, type) {
      if (type !== 'Timeout') return;
      timers.add(id);
      if (!counting) return;
      counts.armed++;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 30;
      if (/scheduleCheckPendingRequests/.test(new Error().stack)) counts.armedByRequestQueue++;
      Error.stackTraceLimit = limit;
    },
    before(id) {
      if (counting && timers.has(id)) counts.wakeUps++;
    },
    destroy(id) {
      timers.delete(id);
    },
  }).enable();
  return { counts, start: () => (counting = true), stop: () => (counting = false) };
}

(async () => {
  const probe = countTimers();
  // 'apps': kafkajs as the apps run it, with @arvis/kafka loaded first (its load-time fix, ADR 0059).
  if (mode === 'apps') load('./dist/libs/kafka/src/index.js');
  const pair = mode === 'client' ? await clientPair() : await kafkajsPair();
  await pair.send(1);
  await waitUntil(() => pair.received() >= 1);
  await sleep(500); // let the first round's replies and commits settle before counting
  probe.start();
  await sleep(IDLE_MS); // the one timer of the probe itself
  probe.stop();
  await pair.send(2);
  await waitUntil(() => pair.received() >= 2);
  await pair.close();
  console.log(JSON.stringify({ idleMs: IDLE_MS, ...probe.counts, received: pair.received() }));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
