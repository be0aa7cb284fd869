import type { BuildOptions } from "esbuild"
import type { RunOptions } from "../../src/boot/codeCache.js"

export declare const bundleOptions: (root: string) => BuildOptions
export declare const launcherSource: (bootModule: string, bundleFile: string, runOptions?: RunOptions) => string
export declare const SERVER_V8_FLAGS: ReadonlyArray<string>
