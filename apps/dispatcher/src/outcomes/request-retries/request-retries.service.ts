import { Inject, Injectable } from '@nestjs/common';
import { RetryStore, type RetryRequest } from '@arvis/lifecycle';
import type { Tx } from '@arvis/persistence';
import { DISPATCHER_CONFIG, type DispatcherConfig } from '../../config/dispatcher.config';

/**
 * A retry is a row, created in the transaction that records the result it answers, within the
 * dispatcher's configured limits (RETRY_MAX_ATTEMPTS unless the tool's policy names its own,
 * RETRY_MAX_RISK). The statement, the derived retry id and the backoff are RetryStore's
 * (libs/lifecycle, the one writer of `retries`); the authorizer's worker turns each row into a new
 * decision that goes through the whole path again once its not-before time has come.
 */
@Injectable()
export class RequestRetriesService {
  constructor(
    @Inject(DISPATCHER_CONFIG) private readonly config: DispatcherConfig,
    private readonly retries: RetryStore,
  ) {}

  request(tx: Tx, candidates: readonly RetryRequest[]): Promise<number> {
    return this.retries.requestRetry(tx, candidates, this.config.retry);
  }
}
