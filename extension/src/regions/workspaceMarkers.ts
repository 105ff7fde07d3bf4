// Scans the workspace's CUDA/C++ sources (and Python, for Triton's Proton scopes) for region markers and integer constants (markers.ts
// does the reading of one file). Bounded: at most MAX_FILES files, none larger than MAX_BYTES,
// build and dependency folders skipped, so opening a trace never waits on a huge tree.
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { FileScan, scanSource } from './markers';

const SOURCES = '**/*.{cu,cuh,h,hh,hpp,hxx,cpp,cc,cxx,inl,py}';  // .py: Proton scopes
const EXCLUDE = '{**/node_modules/**,**/.git/**,**/build/**,**/build-*/**,**/.tools/**,**/third_party/**}';
const MAX_FILES = 4000;
const MAX_BYTES = 2 << 20;

export async function scanWorkspaceMarkers(log?: (line: string) => void): Promise<FileScan[]> {
  if (!vscode.workspace.workspaceFolders?.length) return [];
  const started = Date.now();
  const uris = await vscode.workspace.findFiles(SOURCES, EXCLUDE, MAX_FILES);
  const scans: FileScan[] = [];
  await Promise.all(uris.map(async (uri) => {
    try {
      const st = await fs.stat(uri.fsPath);
      if (st.size > MAX_BYTES) return;
      scans.push(scanSource(uri.fsPath, await fs.readFile(uri.fsPath, 'utf8')));
    } catch { /* unreadable: skipped */ }
  }));
  scans.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const sites = scans.reduce((k, s) => k + s.sites.length, 0);
  log?.(`[regions] scanned ${scans.length} source files for markers in ${Date.now() - started} ms: ${sites} marker sites`);
  // Only files with markers or constants matter later; drop the rest.
  return scans.filter((s) => s.sites.length > 0 || s.constants.size > 0);
}
