import 'reflect-metadata';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { INestApplication, Type } from '@nestjs/common';
import { arvisVersion, ConfigError, describeKafkaSecurity } from '@arvis/config';
import { KafkaBatchTransport } from '@arvis/kafka';
import type { KafkaSettings } from '@arvis/config';
import { PublicErrorFilter } from './http-errors';
import { portGate, securityHeaders } from './http-surface';
import { PinoLogger, type LogFormat } from './pino-logger';
import { ServiceRuntime } from './service-runtime';
import { ConsumerStates } from './consumer-states';
import { describeVerdict, JournalRollbackGuard } from './journal-rollback-guard';
import { isTransientFault } from './transient-fault';
import { applyHeapGrowth } from './heap-growth';

export interface RunServiceOptions<C> {
  service: string;
  /** Parses and validates configuration; a ConfigError (here or from `module`) stops start-up with its message. */
  loadConfig: () => C;
  module: (config: C) => Type<unknown> | import('@nestjs/common').DynamicModule;
  kafka: (config: C) => KafkaSettings;
  topics: (config: C) => Record<string, string>;
  /**
   * Several consumers instead of one over `topics`, each in its own group (a dispatcher's pools,
   * ADR 0081): one consumer per group, so a pool whose members stop never holds another's partitions.
   */
  consumers?: (config: C) => readonly ConsumerPlan[];
  /** Health and metrics (ADR 0038): kept apart from any API, for probes and scrapers only. */
  managementPort: (config: C) => number;
  /** The service's own HTTP API, if it has one (the authorizer's approver API and console). */
  apiPort?: (config: C) => number;
  /** The route prefixes the API port serves, exact letter case (ADR 0038); everything else there is 404. */
  apiRoutes?: readonly string[];
  /** Express's `trust proxy`: which hops may name the client (X-Forwarded-For); rate limits key on it. */
  trustProxy?: (config: C) => boolean | number | string[];
  httpHost: (config: C) => string;
  logLevel: (config: C) => string;
  /** LOG_FORMAT: JSON lines (the default) or human lines for a terminal. */
  logFormat?: (config: C) => LogFormat;
  maxSliceSize: (config: C) => number;
  /** How much of an isolated message's raw bytes its DLQ record keeps (DLQ_MAX_RAW_BYTES). */
  dlqMaxRawBytes: (config: C) => number;
  /** HEAP_GROWING_PERCENT: how far V8's old generation may grow between full GCs (ADR 0085). */
  heapGrowingPercent: (config: C) => number;
}

/**
 * In a hybrid app Nest starts the microservices without running the lifecycle hooks; those run
 * in app.listen(). A consumer started first would handle messages before its services had
 * loaded what onModuleInit loads (the store fingerprint), and refuse genuine intents. So the
 * hooks run first, then the relay, then the consumers, then the HTTP server (readiness).
 */
export async function startInOrder(app: INestApplication, startRelay: () => Promise<void>, ports: Ports, host: string): Promise<void> {
  await app.init();
  await startRelay();
  await app.startAllMicroservices();
  await listen(app, ports, host);
}

async function listen(app: INestApplication, ports: Ports, host: string): Promise<void> {
  if (ports.api === undefined) return void (await app.listen(ports.management, host));
  await app.listen(ports.api, host);
  // The same application on a second listener; the port gate keeps each path to its port.
  const management = createServer(app.getHttpAdapter().getInstance() as Parameters<typeof createServer>[1]);
  await new Promise<void>((resolve, reject) => management.once('error', reject).listen(ports.management, host, resolve));
  app.getHttpServer().once('close', () => management.close());
}

/** One Kafka consumer of a process: its name (readiness shows it), its group and its topics by handler pattern. */
export interface ConsumerPlan {
  name: string;
  groupId: string;
  topics: Record<string, string>;
}

export interface Ports {
  management: number;
  api?: number;
}

/** Starts one app: HTTP (health and metrics on the management port, the API if any), the Kafka consumer transport, the relay; stops in order. */
export async function runService<C>(opts: RunServiceOptions<C>): Promise<INestApplication> {
  let config: C;
  let logger: PinoLogger;
  let root: ReturnType<RunServiceOptions<C>['module']>;
  try {
    config = opts.loadConfig();
    applyHeapGrowth(opts.heapGrowingPercent(config));
    logger = new PinoLogger(opts.service, opts.logLevel(config), { format: opts.logFormat?.(config), version: arvisVersion() });
    // Building the root module loads the tool packages: a package that cannot be loaded is a
    // configuration problem too.
    root = opts.module(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`[${opts.service}] ${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
  const app = await NestFactory.create(root, { logger, bufferLogs: false });
  app.enableShutdownHooks();
  const ports: Ports = { management: opts.managementPort(config), api: opts.apiPort?.(config) };
  (app.getHttpAdapter().getInstance() as { set(name: string, value: unknown): void }).set('trust proxy', opts.trustProxy?.(config) ?? false);
  app.use(portGate(ports.management, opts.apiRoutes ?? []));
  app.use(securityHeaders());
  const guard = app.get(JournalRollbackGuard);
  app.use(refuseWhileRolledBack(guard));
  app.useGlobalFilters(new PublicErrorFilter());
  let fatal = false;
  const kafka = opts.kafka(config);
  const topics = opts.topics(config);
  // A process with no topics to consume (the standalone relay) runs no Kafka consumer.
  const plans = opts.consumers?.(config) ?? (Object.keys(topics).length > 0 ? [{ name: 'default', groupId: kafka.groupId, topics }] : []);
  const states = app.get(ConsumerStates);
  for (const plan of plans) {
    states.set(plan.name, { group: plan.groupId, topics: Object.values(plan.topics), state: 'connecting' });
    app.connectMicroservice(
      {
        strategy: new KafkaBatchTransport({
          kafka: { ...kafka, groupId: plan.groupId },
          topics: plan.topics,
          maxSliceSize: opts.maxSliceSize(config),
          dlqMaxRawBytes: opts.dlqMaxRawBytes(config),
          isTransient: isTransientFault,
          // No slice is handled while the database is behind the journal topic (ADR 0055).
          gate: guard,
          onState: (state) => states.update(plan.name, state),
          onFatal: (error) => {
            if (fatal) return;
            fatal = true;
            logger.fatal({ msg: 'consumer cannot make progress, exiting', consumer: plan.name, error: error.message }, 'Consumer');
            // Exit non-zero so the supervisor restarts us; uncommitted offsets are redelivered.
            setTimeout(() => process.exit(70), 100).unref();
            void app.close().finally(() => process.exit(70));
          },
        }),
      },
      { inheritAppConfig: true },
    );
  }
  await startInOrder(app, () => app.get(ServiceRuntime).startRelay(), ports, opts.httpHost(config));
  logger.log({ msg: 'ready', managementPort: ports.management, ...(ports.api === undefined ? {} : { apiPort: ports.api }) }, 'Bootstrap');
  // Which principal this process acts as (never the password): the broker's ACLs are per principal.
  logger.log({ msg: 'kafka', brokers: kafka.brokers, security: describeKafkaSecurity(kafka.security) }, 'Bootstrap');
  return app;
}

/** The one act served while the database is behind the journal topic, besides reads. */
const RECONCILE_PATH = '/admin/store/reconcile-rollback';

/**
 * While the rollback check refuses (ADR 0055), every request that could change something (and so
 * append to the journal, whose chain would fork from the topic's) is answered 503 with the
 * verdict's code; reads and the operator's reconcile act go through.
 */
export function refuseWhileRolledBack(guard: JournalRollbackGuard) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (guard.open || req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    if ((req.url ?? '').split('?')[0] === RECONCILE_PATH) return next();
    const verdict = guard.verdict;
    res.statusCode = 503;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ statusCode: 503, error: verdict.state, message: describeVerdict(verdict) }));
  };
}
