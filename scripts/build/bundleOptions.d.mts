import type { BuildOptions } from "esbuild"

export declare const bundleOptions: (root: string) => BuildOptions
export declare const launcherSource: (bootModule: string, bundleFile: string) => string
