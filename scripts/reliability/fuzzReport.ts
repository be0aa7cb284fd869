/** The figures of a fuzz run as text: per operation, per kind of request, failures with their requests. */
import type { Failure, FuzzReport } from "./fuzzRunner.js"

const EXCERPT = 300

const excerpt = (text: string) => text.length <= EXCERPT ? text : `${text.slice(0, EXCERPT)}… (${text.length} chars)`

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n")
}

const statuses = (counts: ReadonlyMap<string, number>) =>
  [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`).join(" ")

/** One failure, with what is needed to send the request again by hand. */
export const formatFailure = (failure: Failure) => {
  const { request, outcome } = failure
  const answer = outcome._tag === "Reply"
    ? `${outcome.reply.status} ${outcome.reply.contentType ?? ""} ${excerpt(outcome.reply.body)}`
    : `dropped: ${outcome.error}`
  return [
    `#${failure.index} ${request.operation} [${request.kind}]: ${failure.reason}`,
    `  ${request.method} ${excerpt(request.path)}${request.chunked ? " (chunked)" : ""}`,
    `  headers ${excerpt(JSON.stringify(request.headers))}`,
    ...(request.body === undefined ? [] : [`  body ${excerpt(JSON.stringify(request.body))}`]),
    `  → ${answer}`
  ].join("\n")
}

export const formatReport = (report: FuzzReport, label: string, maxFailures = 20) => {
  const operations = [...report.operations].map(([id, figures]) =>
    [id, String(figures.requests), String(figures.failures), String(Math.round(figures.maxMs)), statuses(figures.statuses)])
  const kinds = [...report.kinds].sort(([, a], [, b]) => b - a).map(([kind, n]) => `${kind} ${n}`).join(", ")
  return [
    `== ${label}: seed ${report.seed}, ${report.requests} requests, ${report.failures.length} failures, ${(report.elapsedMs / 1000).toFixed(1)} s`,
    table(["operation", "requests", "failures", "max ms", "statuses"], operations),
    `kinds: ${kinds}`,
    `slowest: ${report.slowest.map((slow) => `#${slow.index} ${slow.request.operation} [${slow.request.kind}] ${Math.round(slow.ms)} ms`).join("; ")}`,
    ...report.checks.map((check) => `after the run: ${check.name}: ${check.ok ? "ok" : "FAILED"} (${check.detail})`),
    ...report.failures.slice(0, maxFailures).map(formatFailure),
    ...(report.failures.length > maxFailures ? [`… and ${report.failures.length - maxFailures} more failures`] : [])
  ].join("\n")
}
