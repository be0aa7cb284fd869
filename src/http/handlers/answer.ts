import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { Answerer } from "../../services/recall/Answerer.js"

export const AnswerLive = HttpApiBuilder.group(MemoryApi, "answer", (handlers) =>
  Effect.gen(function*() {
    const answerer = yield* Answerer
    return handlers.handle("answer", ({ payload }) =>
      Effect.if(payload.async_mode, {
        onTrue: () => answerer.accept(payload),
        onFalse: () => answerer.answer(payload)
      }))
  }))
