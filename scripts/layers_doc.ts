/**
 * Rewrites the layer table in ARCHITECTURE.md (between `<!-- layers -->` and
 * `<!-- /layers -->`) from tests/_layers.ts, the table the architecture test
 * checks the code against. `deno run -A scripts/layers_doc.ts`
 */
import { renderLayers } from "../tests/_layers.ts";

const file = new URL("../ARCHITECTURE.md", import.meta.url);
const doc = await Deno.readTextFile(file);
const start = doc.indexOf("<!-- layers -->");
const end = doc.indexOf("<!-- /layers -->");
if (start < 0 || end < start) {
  throw new Error("ARCHITECTURE.md has no <!-- layers --> … <!-- /layers --> block");
}
const next = `${doc.slice(0, start)}<!-- layers -->\n\n${renderLayers()}\n\n${doc.slice(end)}`;
if (next !== doc) await Deno.writeTextFile(file, next);
// deno-lint-ignore no-console
console.log(
  next === doc ? "ARCHITECTURE.md: layer table up to date" : "ARCHITECTURE.md: layer table rewritten",
);
