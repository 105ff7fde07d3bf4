// Loads the N-API addon (native/addon) once, from a path relative to the extension.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as Addon from '../../native/addon/index';
import { findAddon } from './nativePaths';

export type StrataAddon = typeof Addon;

let cached: StrataAddon | undefined;

export class AddonMissingError extends Error {}

export function loadAddon(extensionDir: string): StrataAddon {
  if (cached) return cached;
  const found = findAddon(extensionDir, process.env, (p) => fs.existsSync(p));
  if (!found.path) {
    throw new AddonMissingError(
      `Strata's native addon (strata_addon.node) was not found. Build it with "bash native/addon/build.sh" ` +
      `and rebuild the extension. Looked in: ${found.searched.join(', ')}`);
  }
  try {
    const req = createRequire(__filename);
    cached = req(found.path) as StrataAddon;
  } catch (e) {
    throw new AddonMissingError(`Strata's native addon at ${found.path} could not be loaded: ${(e as Error).message}`);
  }
  return cached;
}
