export { Tracing, endSpan, type SpanParent, type SpanOptions } from './tracing';
export { TracingModule } from './tracing.module';
export { traceIdOf, withTraceHeaders, type TraceCarrier } from './trace-carrier';
export { SpanKind, type Span } from '@opentelemetry/api';
