// Copies the memory explorer's vendored browser files from node_modules (installed by
// `npm ci` from package-lock.json) into the Python package, and records where each came
// from in manifest.json. Run through scripts/build-explorer; tests/api/test_explorer.py
// checks the manifest against package-lock.json and the shipped files against the manifest.
//
// Cytoscape.js's prebuilt UMD file, copied as published: it sets window.cytoscape.

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', '..', 'app', 'api', 'explorer', 'assets');

// shipped name -> [npm package, path inside it]
const FILES = {
  'cytoscape.min.js': ['cytoscape', 'dist/cytoscape.min.js'],
  'LICENSE.cytoscape': ['cytoscape', 'LICENSE'],
};

const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8'));
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// The folder also holds the explorer's own files: replace only what the last build copied.
mkdirSync(target, { recursive: true });
const manifestPath = join(target, 'manifest.json');
if (existsSync(manifestPath)) {
  for (const name of Object.keys(JSON.parse(readFileSync(manifestPath, 'utf8')).files)) {
    rmSync(join(target, name), { force: true });
  }
}
const packages = {};
const files = {};
for (const [name, [pkg, path]] of Object.entries(FILES)) {
  const installed = JSON.parse(readFileSync(join(here, 'node_modules', pkg, 'package.json'), 'utf8'));
  const locked = lock.packages[`node_modules/${pkg}`];
  if (!locked || locked.version !== installed.version) {
    throw new Error(`${pkg} ${installed.version} is installed, the lock file has ${locked?.version}: run npm ci`);
  }
  packages[pkg] = { version: locked.version, integrity: locked.integrity, license: locked.license };
  const source = join(here, 'node_modules', pkg, path);
  copyFileSync(source, join(target, name));
  files[name] = { package: pkg, path, sha256: sha256(readFileSync(source)) };
}
const manifest = { generatedBy: 'scripts/build-explorer', packages, files };
writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
console.log(`copied ${Object.keys(files).length} files into ${target}`);
