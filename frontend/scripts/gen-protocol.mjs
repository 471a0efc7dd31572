// Generates src/protocol/generated.ts from backend/partchat/schemas/protocol.schema.json.
// `npm run gen:protocol` writes the file; src/protocol/generated.test.ts regenerates it in
// memory and fails when the committed file has drifted from the schema.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
export const schemaPath = resolve(here, "../../backend/partchat/schemas/protocol.schema.json");
export const outputPath = resolve(here, "../src/protocol/generated.ts");

const banner = `/* eslint-disable */
/**
 * GENERATED FILE: do not edit by hand.
 * Source: backend/partchat/schemas/protocol.schema.json
 * Regenerate with: npm run gen:protocol
 */`;

export async function generate() {
  const schema = JSON.parse(await readFile(schemaPath, "utf8"));
  return compile(schema, "ProtocolFrame", {
    bannerComment: banner,
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: true,
    style: { singleQuote: false, semi: true, printWidth: 100 },
    cwd: dirname(schemaPath),
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ts = await generate();
  await writeFile(outputPath, ts);
  console.log(`wrote ${outputPath}`);
}
