import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "./api.js"

export type AsyncState<T> =
  | { readonly status: "idle" }
  | { readonly status: "loading" }
  | { readonly status: "ok"; readonly data: T }
  | { readonly status: "error"; readonly error: ApiError }

const IDLE = { status: "idle" } as const

const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, "console_error", error instanceof Error ? error.message : String(error))

/**
 * An asynchronous call run on demand. Only the latest run's outcome is kept, so a slow answer
 * to an earlier request never overwrites a newer one. `run` resolves to the data, or undefined
 * when the call failed (the failure is in the state).
 */
export const useAction = <A extends ReadonlyArray<unknown>, T>(action: (...args: A) => Promise<T>, initial: AsyncState<T> = IDLE) => {
  const [state, setState] = useState<AsyncState<T>>(initial)
  const latest = useRef(0)
  const current = useRef(action)
  current.current = action
  const run = useCallback(async (...args: A): Promise<T | undefined> => {
    const id = ++latest.current
    setState({ status: "loading" })
    try {
      const data = await current.current(...args)
      if (id === latest.current) setState({ status: "ok", data })
      return data
    } catch (error) {
      if (id === latest.current) setState({ status: "error", error: asApiError(error) })
      return undefined
    }
  }, [])
  const reset = useCallback(() => {
    latest.current++
    setState(IDLE)
  }, [])
  return { state, run, reset } as const
}

const LOADING = { status: "loading" } as const

/** A call made when the component appears and again whenever one of `deps` changes. */
export const useLoad = <T>(load: () => Promise<T>, deps: ReadonlyArray<unknown>) => {
  // Loading from the first render: the call starts as soon as the component appears.
  const { state, run } = useAction(load, LOADING)
  useEffect(() => {
    void run()
  }, deps)
  return { state, reload: run } as const
}
