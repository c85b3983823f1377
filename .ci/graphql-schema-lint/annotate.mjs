// Reads the served schema (SDL, from `okrgate schema`) on stdin and writes it
// with inline graphql-schema-linter markers around the deprecated aliases:
// the earlier spellings of sort enum values (lower camelCase) and of filter
// input fields (dots as underscores) are kept, deprecated, for existing
// clients, so the naming rules do not apply to them. Everything else is
// linted as served.
import { readFileSync } from 'node:fs';

const lines = readFileSync(0, 'utf8').split('\n');
const out = [];
const rules = {
  value: 'enum-values-all-caps',
  input: 'input-object-values-are-camel-cased',
};
for (const line of lines) {
  let rule = null;
  if (/^\s+[a-z][A-Za-z0-9_]* @deprecated\(/.test(line)) rule = rules.value;
  else if (/^\s+[a-z][A-Za-z0-9]*_[A-Za-z0-9_]*: \w+ @deprecated\(/.test(line)) rule = rules.input;
  if (rule) {
    // The node starts at its description: a block string just above.
    let start = out.length;
    if (out.length > 0 && out[out.length - 1].trim() === '"""') {
      start = out.length - 1;
      while (start > 0 && out[start - 1].trim() !== '"""') start--;
      start--;
    }
    out.splice(start, 0, `# lint-disable ${rule}`);
    out.push(line, `# lint-enable ${rule}`);
    continue;
  }
  out.push(line);
}
process.stdout.write(out.join('\n'));
