import { Document } from "@langchain/core/documents"
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers"
import type { MemoryClient } from "../core/client.js"
import { readHits } from "../core/reads.js"
import type { MemoryScope } from "../core/scope.js"

/** What each document says about the hit it came from. */
export interface MemoryDocumentMetadata {
  readonly id: string
  readonly score: number | null
  readonly session_id: string | null
  readonly occurred_at: string | null
  /** The hit's evidence: where it was taken from (turns, spans), its kind, status and versions. */
  readonly provenance: Record<string, unknown>
}

export interface MemoryRetrieverOptions extends BaseRetrieverInput {
  readonly client: MemoryClient
  readonly userId: string
  readonly scope?: MemoryScope
  /** How many hits to return (default 5). */
  readonly topK?: number
}

/**
 * A user's memories as LangChain documents, ranked by the service's search. When the service is
 * down or slow it returns no documents after the client's timeout, counted in `client.stats.degraded`.
 */
export class MemoryRetriever extends BaseRetriever<MemoryDocumentMetadata> {
  static override lc_name() {
    return "MemoryRetriever"
  }

  override lc_namespace = ["memory-service", "retrievers"]
  readonly #options: MemoryRetrieverOptions

  constructor(options: MemoryRetrieverOptions) {
    super(options)
    this.#options = options
  }

  override async _getRelevantDocuments(query: string): Promise<Array<Document<MemoryDocumentMetadata>>> {
    const { client, userId, scope, topK } = this.#options
    const hits = await readHits(client, { userId, scope }, query, topK ?? 5)
    return hits.map((hit) =>
      new Document<MemoryDocumentMetadata>({
        pageContent: hit.content,
        id: hit.id,
        metadata: { id: hit.id, score: hit.score, session_id: hit.session_id, occurred_at: hit.occurred_at, provenance: hit.metadata }
      })
    )
  }
}
