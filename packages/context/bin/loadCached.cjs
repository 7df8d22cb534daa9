// Runs a CommonJS bundle of the engine (scripts/cachedBundle.ts builds it) with the V8 code cache
// made beside it at build time (`<bundle>.v8cache`): the bytecode of every function the build's
// training run called, so a fresh process neither parses nor compiles them again (8–10 ms of a
// cold compaction). V8 checks the cache against its own version and flags but of the source only
// its length, so a cache older than its bundle is not even offered; one V8 cannot use is rejected;
// either way the bundle compiles as usual, with the same result. The cache is written only by the
// build, beside the bundle, so it is exactly as trusted as the bundle itself.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: plain node loads it before anything else */
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const { wrap } = require('node:module');
const { dirname } = require('node:path');
const { Script } = require('node:vm');

/**
 * Loads `file` (a CommonJS bundle) and returns its exports, what became of the code cache
 * ('used', 'rejected' by V8, 'stale' when older than the bundle, 'none' when there is none), and
 * `save()`, which writes the cache of everything compiled so far (the build calls it after its
 * training run).
 */
function loadCached(file) {
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  let stale = false;
  try {
    stale = statSync(cacheFile).mtimeMs < statSync(file).mtimeMs;
    if (!stale) cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  return {
    exports: module.exports,
    cache: stale ? 'stale' : cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
    save: () => writeFileSync(cacheFile, script.createCachedData()),
  };
}

module.exports = { loadCached };
