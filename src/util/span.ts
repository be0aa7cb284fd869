import { Effect, FiberRef, type Tracer } from "effect"

/**
 * `Effect.withSpan` while tracing is on, else the effect as it is. While no trace is exported
 * (`FiberRef.currentTracerEnabled` off, see http/untraced.ts), a span would be a no-op, yet it
 * still copies the request's whole context (~45 services) to hold itself as the parent span, and
 * adds the fiber work of ending it. The call site's stack trace is never captured: that makes an
 * Error every time the effect is built, and the span's name already says where it comes from.
 */
export const span = (name: string, options?: Omit<Tracer.SpanOptions, "captureStackTrace">) => {
  const spanOptions = { ...options, captureStackTrace: false }
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (traced) => traced ? Effect.withSpan(self, name, spanOptions) : self)
}
