/** The 422 a body of a media type its route does not read is answered with (src/http/unreadableBodies.ts). */
export const unreadableBodyAnswer = (refusal: {
  readonly reads: string
  readonly reason: string
  readonly input: string
  readonly contentType: string | null
  readonly expected: string
}) => ({
  code: "validation_error",
  message: "request failed schema validation",
  details: {
    errors: [{
      type: "model_attributes_type",
      loc: ["body"],
      msg: `Input should be ${refusal.reads}: ${refusal.reason}`,
      input: refusal.input,
      ctx: { content_type: refusal.contentType, expected: refusal.expected }
    }]
  }
})
