import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { Jobs } from "../../services/jobs/Jobs.js"
import { orNotFound } from "./orNotFound.js"

export const JobsLive = HttpApiBuilder.group(MemoryApi, "jobs", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* Jobs
    return handlers.handle("getJob", ({ path }) =>
      jobs.get(path.job_id).pipe(orNotFound(`job '${path.job_id}' not found`)))
  }))
