/** What the embedding worker is started with. */
export interface WorkerSetup {
  readonly directory: string
}

/** One batch of texts to embed. */
export interface WorkerRequest {
  readonly id: number
  readonly texts: ReadonlyArray<string>
}

export type WorkerReply =
  | { readonly kind: "ready"; readonly dimensions: number; readonly maxTokens: number }
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "vectors"; readonly id: number; readonly vectors: ReadonlyArray<Float32Array> }
  | { readonly kind: "error"; readonly id: number; readonly message: string }
