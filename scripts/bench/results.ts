// The shape of one benchmark run, as written to results.json and rendered by report.ts.
import type { WorkFigures } from './work';
import type { TokenCacheFigures } from './metrics';
import type { CpuFigures, IdleFigures } from './proc';
import type { LatencySummary } from './stats';

/** After the last final entry, before the idle window: the relays' and consumers' last rounds end. */
export const IDLE_SETTLE_MS = 5000;

export const ROLES = ['authorizer', 'dispatcher', 'broker', 'postgres', 'producer'] as const;

export interface StepResult {
  kind: 'throughput' | 'sweep';
  /** Offered decisions/s (sweep steps); null for the throughput step (everything at once). */
  offered: number | null;
  decisions: number;
  windowMs: number;
  /** Decisions/s completed (final journal entry seen on the topic). */
  achieved: number;
  latency: LatencySummary;
  cpu: CpuFigures;
  /** The authorizer's verified-token cache over the window; null for a build without one (or an old results file). */
  tokenCache?: TokenCacheFigures | null;
  /** Final journal entries of the window's decisions by kind, read from the database after the window. */
  finals?: Record<string, number>;
  /** What the load should end with: every decision exactly one final entry. */
  expectedFinals?: Record<string, number>;
  /** Database writes and broker requests per decision over the window (absent in older results files). */
  work?: WorkFigures;
}

/** The apps and the broker with no load, after a step's window (apps warm). */
export interface IdleResult {
  seconds: number;
  /** By role; null when a process could not be read at both ends. */
  roles: Record<string, IdleFigures | null>;
  /** --idle-only: one decision sent after the window, ms to its final entry (null: none within 60 s). */
  afterIdleMs?: number | null;
}

export interface VariantResult {
  label: string;
  commit: string;
  steps: StepResult[];
  /** Highest VmHWM seen of each app over the whole run, MB. */
  peakRssMb: Record<string, number>;
  saturation: number | null;
  duplicatesOnJournalTopic: number;
  /** The idle phase (after the first step); absent with --idle-seconds 0. */
  idle?: IdleResult;
}

export interface Baselines {
  pgbench?: { clients: number; seconds: number; tps: number } | { error: string };
  kafkaRoundTrip?: ({ rate: number } & LatencySummary) | { error: string };
}

/** The outbox drained by N relay processes at once (scale phase). */
export interface RelayScaleResult {
  processes: number;
  /** RELAY_SHARDS the relays ran with (ADR 0089); absent in results from before: 1. */
  shards?: number;
  rows: number;
  /** From the commit of the pre-filled rows to the poll that saw none left unpublished. */
  seconds: number;
  rowsPerS: number;
  /** Rows each relay process says it published (its /health/ready relay stats), in start order. */
  publishedByProcess: (number | null)[];
  busyPercent: number;
  /** ms of CPU per 1,000 rows: relay (all relay processes), postgres, broker. */
  cpuMsPer1000: Record<string, number>;
}

/** Journal entries appended by N processes at once, each one transaction at a time (scale phase). */
export interface JournalScaleResult {
  processes: number;
  /** Journal chains the appenders wrote to (ADR 0062); absent in results from before: 1. */
  shards?: number;
  /** Entries per transaction. */
  batch: number;
  seconds: number;
  entries: number;
  transactions: number;
  entriesPerS: number;
  transactionsPerS: number;
  /** Append transaction time (begin to commit, as the appender sees it). */
  p50Ms: number;
  p99Ms: number;
  busyPercent: number;
  /** Mean share of the appenders found waiting on a lock (the head row's), sampled every 50 ms, percent. */
  lockWaitPercent: number;
  /** ms of CPU per 1,000 entries: appender (all appender processes), postgres. */
  cpuMsPer1000: Record<string, number>;
}

export interface ScaleResults {
  relay: RelayScaleResult[];
  journal: JournalScaleResult[];
  errors: string[];
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  durationS: number;
  machine: { cpus: number; loadAverageAtStart: number[] };
  options: { decisions: number; brokerWarmup?: number; sweep: number[]; stepSeconds: number; p99BoundMs: number; baselineSeconds: number; load?: string; idleSeconds?: number; idleOnly?: boolean; scale?: number[]; compare?: string };
  notes: string[];
  variants: VariantResult[];
  baselines: Baselines;
  /** Present when --scale was given. */
  scale?: ScaleResults;
}
