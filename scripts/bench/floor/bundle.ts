import * as esbuild from "esbuild"
import * as NodePath from "node:path"
import { bundleOptions } from "../../build/bundleOptions.mjs"

/** The checkout these scripts belong to, whichever directory a benchmark runs from. */
const ROOT = NodePath.resolve(import.meta.dirname, "../../..")

/** A floor server under scripts/bench/floor, bundled into `directory` exactly as the service's entry points are: the path of its bundle. */
export const bundleFloorServer = async (name: "effectServer" | "nodeServer", directory: string) => {
  const outdir = NodePath.join(directory, `floor-${name}`)
  await esbuild.build({ ...bundleOptions(ROOT), entryPoints: { [name]: NodePath.join(ROOT, "scripts/bench/floor", `${name}.ts`) }, outdir })
  return NodePath.join(outdir, `${name}.js`)
}
