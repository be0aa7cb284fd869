export declare const BUILD_INPUTS: ReadonlyArray<string>
export declare const BUILD_OUTPUTS: ReadonlyArray<string>
export declare const staleReason: (root: string) => string | null
