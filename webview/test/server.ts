// Tiny static server for the Chromium tests: serves webview/ (dist, test harness) and media/,
// and puts a VS Code-like Content-Security-Policy (with a script nonce) into the harness page.
import { createServer, Server } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

export const WEBVIEW_DIR = resolve(__dirname, '..', '..');   // test/out/ → webview/
export const MEDIA_DIR = resolve(WEBVIEW_DIR, '..', 'media');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.map': 'application/json',
};

export async function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/favicon.ico') { res.writeHead(204).end(); return; }
    let file: string;
    if (u.pathname.startsWith('/media/')) file = join(MEDIA_DIR, normalize(u.pathname.slice(7)));
    else file = join(WEBVIEW_DIR, normalize(u.pathname));
    if (!file.startsWith(WEBVIEW_DIR) && !file.startsWith(MEDIA_DIR)) { res.writeHead(403).end(); return; }
    if (!existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end('not found'); return; }
    let body: Buffer | string = readFileSync(file);
    if (u.pathname === '/test/harness.html') {
      const nonce = randomBytes(16).toString('base64');
      const origin = `http://${req.headers.host}`;
      // What the extension should use (see README): nonce'd scripts + 'unsafe-eval' for regl.
      const evalSrc = u.searchParams.get('csp') === 'no-eval' ? '' : " 'unsafe-eval'";
      const csp = `default-src 'none'; img-src ${origin} data:; style-src ${origin}; font-src ${origin}; script-src 'nonce-${nonce}'${evalSrc};`;
      body = body.toString('utf8').replace(/\{\{NONCE\}\}/g, nonce).replace(/\{\{CSP\}\}/g, csp);
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
