/** CPU time of processes as the kernel counts it (/proc), for benchmarks that run the service and PostgreSQL as processes. */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())

interface ProcStat {
  readonly ppid: number
  /** utime + stime, ms. */
  readonly ownMs: number
  /** cutime + cstime: children that ended and were waited for, ms. */
  readonly reapedMs: number
}

/**
 * Fields of a process's or thread's stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`);
 * the command name in parentheses may hold spaces, so fields count from its closing one.
 */
const procStat = (pid: number, path = `/proc/${pid}/stat`): ProcStat | undefined => {
  let text: string
  try {
    text = NodeFs.readFileSync(path, "utf8")
  } catch {
    // The process ended between listing and reading: its time is in its parent's reaped count.
    return undefined
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const tick = (i: number) => Number(fields[i]) * 1000 / TICKS_PER_SECOND
  // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  return { ppid: Number(fields[1]), ownMs: tick(11) + tick(12), reapedMs: tick(13) + tick(14) }
}

/** CPU ms one process has used so far. */
export const processCpuMs = (pid: number) => procStat(pid)?.ownMs ?? 0

/**
 * CPU ms a process's main thread has used so far: for Node, the JavaScript and what it calls
 * synchronously. The rest of the process's time is its other threads': V8's compiler and garbage
 * collector helpers, libuv's pool, worker threads.
 */
export const mainThreadCpuMs = (pid: number) => procStat(pid, `/proc/${pid}/task/${pid}/stat`)?.ownMs ?? 0

/**
 * CPU ms a process tree has used so far: the process, its live children (PostgreSQL's backends and
 * workers under the postmaster) and the children that have ended.
 */
export const treeCpuMs = (rootPid: number) => {
  const root = procStat(rootPid)
  if (root === undefined) return 0
  let total = root.ownMs + root.reapedMs
  for (const entry of NodeFs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(Number(entry))
    if (stat?.ppid === rootPid) total += stat.ownMs
  }
  return total
}
