import { Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';

/** One Prometheus registry per process, served on /metrics; use cases add their own counters. */
@Injectable()
export class MetricsRegistry extends Registry {}
