// Khronos' glTF-Validator over the files named: one JSON line per file with its counts of
// errors, warnings, infos and hints and the messages of the first two.
//
//     node validate.mjs NODE_MODULES FILE...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, ...files] = process.argv.slice(2);
const validator = createRequire(import.meta.url)(path.resolve(modules, 'gltf-validator'));
for (const file of files) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: file,
    maxIssues: 100,
  });
  const { numErrors, numWarnings, numInfos, numHints, messages } = report.issues;
  console.log(JSON.stringify({
    file,
    errors: numErrors,
    warnings: numWarnings,
    infos: numInfos,
    hints: numHints,
    messages: messages.filter((m) => m.severity <= 1),
  }));
}
