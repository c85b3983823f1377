// Validates okrgate's OpenAPI document with swagger-parser (schema
// validation of OpenAPI 3.1 plus its own checks, every $ref resolved):
// node validate.mjs [path], default ../../../upstream/transport/rest/openapi.json.
import SwaggerParser from "@apidevtools/swagger-parser";
import { fileURLToPath } from "node:url";

const path = process.argv[2] ?? fileURLToPath(new URL("../../../upstream/transport/rest/openapi.json", import.meta.url));
try {
  const api = await SwaggerParser.validate(path);
  const ops = Object.values(api.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`swagger-parser: ${api.info.title} ${api.info.version} (OpenAPI ${api.openapi}) is valid: ${ops} operations`);
} catch (err) {
  console.error(`swagger-parser: ${path} is invalid:\n${err.message}`);
  process.exit(1);
}
