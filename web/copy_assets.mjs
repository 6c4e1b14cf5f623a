// Copies a page's vendored browser files from its node_modules (installed by `npm ci` from
// its package-lock.json) into the page's assets folder in the Python package, and records
// where each came from in manifest.json (version, integrity and licence of each package,
// package, path and sha256 of each file). Used by web/explorer/build.mjs and
// web/graphiql/build.mjs; their tests check the manifest against package-lock.json and the
// shipped files against the manifest.

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * npmDir: the folder with package.json, package-lock.json and node_modules;
 * target: the assets folder; files: shipped name -> [npm package, path inside it];
 * generatedBy: the script named in the manifest.
 */
export function copyAssets({ npmDir, target, files: wanted, generatedBy }) {
  const lock = JSON.parse(readFileSync(join(npmDir, 'package-lock.json'), 'utf8'));
  // The folder also holds the page's own files: replace only what the last build copied.
  mkdirSync(target, { recursive: true });
  const manifestPath = join(target, 'manifest.json');
  if (existsSync(manifestPath)) {
    for (const name of Object.keys(JSON.parse(readFileSync(manifestPath, 'utf8')).files)) {
      rmSync(join(target, name), { force: true });
    }
  }
  const packages = {};
  const files = {};
  for (const [name, [pkg, path]] of Object.entries(wanted)) {
    const installed = JSON.parse(readFileSync(join(npmDir, 'node_modules', pkg, 'package.json'), 'utf8'));
    const locked = lock.packages[`node_modules/${pkg}`];
    if (!locked || locked.version !== installed.version) {
      throw new Error(`${pkg} ${installed.version} is installed, the lock file has ${locked?.version}: run npm ci`);
    }
    packages[pkg] = { version: locked.version, integrity: locked.integrity, license: locked.license };
    const source = join(npmDir, 'node_modules', pkg, path);
    copyFileSync(source, join(target, name));
    files[name] = { package: pkg, path, sha256: sha256(readFileSync(source)) };
  }
  const manifest = { generatedBy, packages, files };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  console.log(`copied ${Object.keys(files).length} files into ${target}`);
}
