import { Effect, type Tracer } from "effect"

/**
 * `Effect.withSpan` without the call site's stack trace. Capturing it makes an Error every time
 * the effect is built, which is on every request (and while no trace is exported, for a span that
 * is a no-op); the span's name already says where it comes from.
 */
export const span = (name: string, options?: Omit<Tracer.SpanOptions, "captureStackTrace">) =>
  Effect.withSpan(name, { ...options, captureStackTrace: false })
