import { Effect } from "effect"

const BAR_WIDTH = 24

/** `[######------] 3/8 users  alice`: how far a run over users is, and the one in hand. */
export const progressLine = (done: number, total: number, current: string | null) => {
  const filled = total === 0 ? BAR_WIDTH : Math.round((BAR_WIDTH * done) / total)
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${done}/${total} users${current === null ? "" : `  ${current}`}`
}

/** Redraws the line in place on a terminal, ending it once all are done; nothing on a pipe or a log. */
export const userProgress = (terminal: boolean) => (progress: { readonly done: number; readonly total: number; readonly current: string | null }) =>
  terminal
    ? Effect.sync(() => process.stderr.write(`\r\x1b[K${progressLine(progress.done, progress.total, progress.current)}${progress.current === null ? "\n" : ""}`))
    : Effect.void
