import { useEffect, useState } from "preact/hooks"
import { ApiError } from "../../lib/api.js"
import { api } from "../../lib/client.js"
import type { Job, JobStatus } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"

export const POLL_INTERVAL_MS = 1000

const FINISHED: ReadonlySet<JobStatus> = new Set(["succeeded", "failed"])

export const isFinished = (job: Job) => FINISHED.has(job.status)

export interface FollowedJob {
  readonly state: AsyncState<Job>
  /** How many times the job has been read. */
  readonly checks: number
}

/**
 * A job read again every second while it is pending or running, until it succeeds or fails,
 * `following` turns false, or the page goes away. A failed read stops following: it shows why.
 */
export const useFollowedJob = (id: string, following: boolean, apiKey: string | null): FollowedJob => {
  const [state, setState] = useState<AsyncState<Job>>({ status: "idle" })
  const [checks, setChecks] = useState(0)
  useEffect(() => {
    if (id === "") {
      setState({ status: "idle" })
      return
    }
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const check = async () => {
      try {
        const job = await api.job(id)
        if (stopped) return
        setState({ status: "ok", data: job })
        setChecks((n) => n + 1)
        if (following && !isFinished(job)) timer = setTimeout(() => void check(), POLL_INTERVAL_MS)
      } catch (error) {
        if (!stopped) setState({ status: "error", error: error instanceof ApiError ? error : new ApiError(0, "console_error", String(error)) })
      }
    }
    setChecks(0)
    setState({ status: "loading" })
    void check()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [id, following, apiKey])
  return { state, checks }
}
