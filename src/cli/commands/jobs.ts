import { Args, Command } from "@effect/cli"
import { Effect, Schedule } from "effect"
import type { Job } from "../../api/JobsApi.js"
import type { EffectClient } from "../../client/index.js"
import { call, withClient } from "../client.js"
import { fromErrorLine } from "../errors.js"
import { printAs, printRecord } from "../output.js"
import { dataOptions } from "../options.js"
import { withSpinner } from "../spinner.js"

const POLL_INTERVAL = "250 millis"

const isFinished = (job: Job) => job.status === "succeeded" || job.status === "failed"

/** Polls a job until it finishes; a failed job becomes the failure its error line names. */
export const waitForJob = (client: EffectClient, jobId: string) =>
  call(client.jobs.getJob({ path: { job_id: jobId } })).pipe(
    Effect.repeat(Schedule.addDelay(Schedule.recurUntil(isFinished), () => POLL_INTERVAL)),
    (poll) => withSpinner(`waiting for job ${jobId}`, poll),
    Effect.flatMap((job) => job.status === "failed" ? Effect.fail(fromErrorLine(job.error ?? "job failed")) : Effect.succeed(job))
  )

export const jobCommand = Command.make(
  "job",
  { ...dataOptions, jobId: Args.text({ name: "job_id" }) },
  ({ jobId, json, ...connection }) =>
    withClient(connection, "jobs", (client) => client.getJob({ path: { job_id: jobId } })).pipe(
      Effect.flatMap((job) => printAs(json, job, (job) => printRecord({ ...job })))
    )
).pipe(Command.withDescription("Status of an asynchronous job"))
