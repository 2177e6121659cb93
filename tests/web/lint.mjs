// Runs ESLint over the viewer's JavaScript with web/eslint.config.js (ctest viewer_lint):
//
//     node lint.mjs WEB PACKAGES
//
// WEB is the viewer's folder; PACKAGES the folder where the build's `npm ci` installed the
// packages web/package-lock.json pins. ESLint loads the config's own imports from beside the
// config, so the config is copied next to the packages; its file patterns are relative to the
// working folder, WEB. Exits 77 (skipped) when ESLint is not installed there (a build without
// the viewer's packages).
import { copyFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const [web, packages] = process.argv.slice(2).map((p) => path.resolve(p));
const eslint = path.join(packages, 'node_modules', 'eslint', 'bin', 'eslint.js');
if (!existsSync(eslint)) {
  console.log(`skipped: no ESLint in ${packages} (the viewer's npm packages are not installed)`);
  process.exit(77);
}
const config = path.join(packages, 'eslint.config.js');
copyFileSync(path.join(web, 'eslint.config.js'), config);
const run = spawnSync(
  process.execPath,
  [eslint, '--config', config, '--max-warnings', '0', 'src', '*.mjs', 'eslint.config.js'],
  { cwd: web, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
