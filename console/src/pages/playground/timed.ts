export interface Timed<T> {
  readonly data: T
  /** Round trip as the browser saw it, in milliseconds. */
  readonly ms: number
}

export const timed = async <T>(call: () => Promise<T>): Promise<Timed<T>> => {
  const started = performance.now()
  const data = await call()
  return { data, ms: performance.now() - started }
}
