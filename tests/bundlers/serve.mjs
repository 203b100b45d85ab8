// A static file server for built apps: right MIME types (application/wasm, so browsers stream the
// compile), optional response headers (the strict Content-Security-Policy check) and optional
// gzip -9 of every response (the start-up measurement, as a production server would send).
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { gzipSync } from "node:zlib";

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

/** Serves `root` on a free port of 127.0.0.1. Returns `{ url, close }`. */
export async function serve(root, { headers = {}, gzip = false } = {}) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(normalize(root))) {
      response.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      const compress = gzip && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "");
      response.writeHead(200, {
        "content-type": types[extname(file)] ?? "application/octet-stream",
        ...(compress ? { "content-encoding": "gzip" } : {}),
        ...headers,
      });
      response.end(compress ? gzipSync(body, { level: 9 }) : body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
