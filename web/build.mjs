// Bundles the viewer into one self-contained HTML file (script and styles inline), which the build
// embeds into the inputanim program: the page fetches nothing but the server's own API.
//
//     node build.mjs OUTPUT.html      (run where `npm ci` installed node_modules)
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(process.cwd(), 'node_modules');
const esbuild = createRequire(path.join(process.cwd(), 'package.json'))('esbuild');
const output = process.argv[2] ?? path.join(process.cwd(), 'index.html');

const result = await esbuild.build({
  entryPoints: [path.join(here, 'src', 'main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  nodePaths: [modules],
  outdir: 'out',
  write: false,
  logLevel: 'warning',
  legalComments: 'none',
});
const text = (ext) =>
  result.outputFiles.filter((f) => f.path.endsWith(ext)).map((f) => f.text).join('\n');
// Inline, "</script" or "</style" inside the code would end the element early.
const script = text('.js').replaceAll('</script', '<\\/script');
const style = text('.css').replaceAll('</style', '<\\/style');
const page = readFileSync(path.join(here, 'src', 'index.html'), 'utf8')
  .replace('/*STYLE*/', () => style)
  .replace('/*SCRIPT*/', () => script);
writeFileSync(output, page);
