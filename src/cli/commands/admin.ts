import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { RequestLogQuery } from "../../api/AdminApi.js"
import { actorOf } from "../../domain/actors.js"
import { withClient } from "../client.js"
import { request } from "../decode.js"
import { dataOptions, optionalField, optionalInteger } from "../options.js"
import { printAs, printPage, printRecord, printTable } from "../output.js"

export const statsCommand = Command.make("stats", dataOptions, ({ json, ...connection }) =>
  withClient(connection, "admin", (client) => client.stats()).pipe(
    Effect.flatMap((stats) => printAs(json, stats, (s) => printRecord({ ...s })))
  )).pipe(Command.withDescription("Users, store sizes, jobs and memories by status"))

export const usageCommand = Command.make("usage", dataOptions, ({ json, ...connection }) =>
  withClient(connection, "observability", (client) => client.usage()).pipe(
    Effect.flatMap((usage) =>
      printAs(json, usage, (u) => {
        const rows = Object.entries(u.by_operation).map(([operation, s]) => [operation, s.calls, s.prompt_tokens, s.completion_tokens, s.total_tokens])
        return rows.length === 0
          ? Console.log("no LLM calls since the service started")
          : printTable(["OPERATION", "CALLS", "PROMPT", "COMPLETION", "TOTAL"], rows)
      }))
  )).pipe(Command.withDescription("LLM calls and tokens since the service started"))

export const configCommand = Command.make("config", dataOptions, ({ json, ...connection }) =>
  withClient(connection, "admin", (client) => client.config()).pipe(
    Effect.flatMap((config) => printAs(json, config, (c) => printRecord({ ...c })))
  )).pipe(Command.withDescription("The service's configuration (secrets shown only as set or not)"))

export const requestsCommand = Command.make(
  "requests",
  { ...dataOptions, limit: optionalInteger("limit", "Rows (1-1000, default 100)"), offset: optionalInteger("offset", "Rows to skip") },
  ({ json, limit, offset, ...connection }) =>
    Effect.gen(function*() {
      const urlParams = yield* request(RequestLogQuery, {
        ...optionalField("limit", Option.map(limit, String)),
        ...optionalField("offset", Option.map(offset, String))
      })
      const page = yield* withClient(connection, "admin", (client) => client.requests({ urlParams }))
      yield* printAs(json, page, (p) =>
        printPage(
          ["TIME", "METHOD", "ROUTE", "STATUS", "MS", "CALLER", "REQUEST"],
          // A named key shows as the actor its changes name (key:<name>), never as bootstrap or anonymous.
          p.requests.map((r) => [r.created_at, r.method, r.route, r.status_code, r.latency_ms.toFixed(1), r.key_name === null ? null : actorOf({ name: r.key_name, keyId: r.key_id }), r.request_id]),
          { offset: p.offset, total: p.total, noun: "requests" }
        ))
    })
).pipe(Command.withDescription("The request log, newest first"))

export const metricsCommand = Command.make("metrics", dataOptions, ({ json, ...connection }) =>
  withClient(connection, "observability", (client) => client.metrics()).pipe(
    Effect.flatMap((metrics) =>
      printAs(json, metrics, (m) =>
        printTable(
          ["ROUTE", "COUNT", "P50 MS", "P95 MS", "P99 MS", "MAX MS"],
          Object.entries(m.routes).map(([route, l]) => [route, l.count, l.p50, l.p95, l.p99, l.max])
        )))
  )).pipe(Command.withDescription("Per-route latency over the most recent requests"))
