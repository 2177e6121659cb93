// The viewer's verdicts on globs (web/src/data.js, globRegExp), for tests/test_viewer_globs.cpp to
// compare with the library's:
//
//     node glob_verdicts.mjs DATA_JS GLOBS PATHS
//
// GLOBS and PATHS hold one glob or path a line. For each glob, one line of one character per
// path: 1 where the glob matches the path, else 0.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [dataJs, globsFile, pathsFile] = process.argv.slice(2);
const { globRegExp } = await import(pathToFileURL(dataJs).href);
const lines = (file) => readFileSync(file, 'utf8').split('\n').slice(0, -1);
const paths = lines(pathsFile);
const out = lines(globsFile).map((glob) => {
  const re = globRegExp(glob);
  return paths.map((p) => (re.test(p) ? '1' : '0')).join('');
});
process.stdout.write(out.map((l) => `${l}\n`).join(''));
