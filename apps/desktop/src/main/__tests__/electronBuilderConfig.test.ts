// electron-builder.yml checked the way electron-builder itself checks it (its JSON schema),
// plus the settings the app's security and packaging require: fuses, targets, asar, icons.
import { describe, expect, it } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { load } from 'js-yaml';

const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const require = createRequire(import.meta.url);

function builderSchema(): object {
  // app-builder-lib is electron-builder's own dependency: resolve it from there.
  const fromBuilder = createRequire(require.resolve('electron-builder/package.json'));
  const libDir = dirname(fromBuilder.resolve('app-builder-lib/package.json'));
  return JSON.parse(readFileSync(join(libDir, 'scheme.json'), 'utf8')) as object;
}

type Config = Record<string, unknown> & {
  directories: { app: string; buildResources: string; output: string };
  electronFuses: Record<string, boolean>;
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
  files: string[];
  asarUnpack: string[];
};

const config = load(readFileSync(join(repoRoot, 'electron-builder.yml'), 'utf8')) as Config;
const validate = new Ajv({ allErrors: true, strict: false }).compile(builderSchema());

function pngSize(file: string): { width: number; height: number } {
  const buf = readFileSync(file);
  expect(buf.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  it("validates against electron-builder's own schema", () => {
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check is real: it rejects an unknown option and a wrongly typed fuse', () => {
    expect(validate({ ...config, asarr: true })).toBe(false);
    expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsNode: 'no' } })).toBe(false);
  });

  it('names the app', () => {
    expect(config.appId).toBe('app.threadline.desktop');
    expect(config.productName).toBe('Threadline');
  });

  it('flips the security fuses', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('builds AppImage + deb, dmg and nsis', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('packs the electron-vite output into an asar with native modules unpacked', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('**/*.node');
    expect(config.asarUnpack.some((p) => p.includes('better-sqlite3'))).toBe(true);
    expect(config.files).toContain('out/**');
    expect(config.directories.output).toBe('release');
    // The app folder's package.json points at what electron-vite builds.
    const appPkg = JSON.parse(readFileSync(join(repoRoot, config.directories.app, 'package.json'), 'utf8')) as {
      main: string;
      dependencies: Record<string, string>;
    };
    expect(appPkg.main.replace(/^\.\//, '')).toMatch(/^out\/main\//);
    expect(Object.keys(appPkg.dependencies)).toContain('better-sqlite3');
  });

  it('uses real icons from resources/', () => {
    const res = join(repoRoot, config.directories.buildResources);
    for (const platform of [config.mac, config.win]) {
      const size = pngSize(join(res, platform.icon));
      expect(size.width).toBeGreaterThanOrEqual(512);
      expect(size.height).toBe(size.width);
    }
    const linuxDir = join(res, config.linux.icon);
    for (const n of [256, 512]) {
      const file = join(linuxDir, `${n}x${n}.png`);
      expect(existsSync(file), file).toBe(true);
      expect(pngSize(file)).toEqual({ width: n, height: n });
    }
  });
});
