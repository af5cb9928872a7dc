import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Nest's default RPC exception filter replaces a handler's error with an opaque "Internal server
 * error", so the transport could not tell a database outage (wait) from a message that fails
 * every time (isolate). Put `@UseFilters(new PassErrorsToTransport())` on a Kafka consumer
 * controller to hand the original error to the transport; without it every failure is treated
 * as transient (waited out, never isolated).
 */
@Catch()
export class PassErrorsToTransport implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
