/**
 * Printing content blocks (tool results, resource contents) for people: text as it is, a
 * resource link as its URI with the `mcpwire read` command that follows it, images, audio and
 * blobs as a `[image image/png, 93 bytes]` line — or, with `--save-dir DIR`, written to a file
 * there with the extension of its MIME type, the path printed instead.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ContentBlock } from '../index.js';
import { safeText } from './output.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'image/x-icon': 'ico',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'weba',
  'audio/flac': 'flac',
  'audio/aac': 'aac',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'application/gzip': 'gz',
  'application/x-gzip': 'gz',
  'application/zip': 'zip',
  'text/plain': 'txt',
  'text/html': 'html',
  'text/markdown': 'md',
  'text/csv': 'csv',
};

/** The file extension for a MIME type (`bin` when unknown). */
export function extensionFor(mimeType: string | undefined): string {
  const base = String(mimeType ?? '').split(';')[0].trim().toLowerCase();
  return EXTENSIONS[base] ?? 'bin';
}

/** Writes base64 `data` into `dir` as `<stem>.<ext>` (never overwriting: `-2`, `-3`… added). Returns the path. */
export function saveBlob(dir: string, stem: string, mimeType: string | undefined, data: string): string {
  mkdirSync(dir, { recursive: true });
  const safeStem = stem.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 80) || 'content';
  const ext = extensionFor(mimeType);
  for (let n = 1; ; n++) {
    const file = path.resolve(dir, `${safeStem}${n === 1 ? '' : `-${n}`}.${ext}`);
    try {
      writeFileSync(file, Buffer.from(data, 'base64'), { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

export interface RenderOptions {
  /** `--save-dir`: where binary content is written. */
  saveDir?: string;
  /** File name stem for saved content (`<tool>-<n>`). */
  stem: string;
  /** Text only (`--text`): other blocks are left out. */
  textOnly?: boolean;
  /** The server id for the `mcpwire read <id> <uri>` hint (undefined ad hoc). */
  server?: string;
  /** Receives the path of every file written. */
  saved?: string[];
}

/** The lines that stand for `blocks` on stdout. */
export function renderBlocks(blocks: readonly ContentBlock[], o: RenderOptions): string[] {
  const out: string[] = [];
  const readHint = (uri: string) => (o.server !== undefined ? `mcpwire read ${o.server} ${uri}` : `mcpwire … read ${uri}`);
  blocks.forEach((block) => {
    const stem = o.stem; // saveBlob numbers further files -2, -3…
    if (block.type === 'text') {
      out.push(block.text.endsWith('\n') ? block.text.slice(0, -1) : block.text);
      return;
    }
    if (o.textOnly) {
      if (block.type === 'resource' && 'text' in block.resource && typeof block.resource.text === 'string') out.push(block.resource.text.replace(/\n$/, ''));
      return;
    }
    if (block.type === 'image' || block.type === 'audio') {
      const bytes = Buffer.from(block.data ?? '', 'base64').length;
      if (o.saveDir !== undefined) out.push(record(o, saveBlob(o.saveDir, stem, block.mimeType, block.data ?? '')));
      else out.push(`[${block.type} ${safeText(block.mimeType, 80)}, ${bytes} bytes; --save-dir DIR writes it to a file]`);
      return;
    }
    if (block.type === 'resource_link') {
      const uri = safeText(block.uri, 2000);
      const name = block.name ? ` ${safeText(block.title ?? block.name, 120)}` : '';
      out.push(`[resource_link${name}] ${uri}  (${readHint(uri)})`);
      return;
    }
    if (block.type === 'resource') {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') out.push(r.text.replace(/\n$/, ''));
      else if ('blob' in r && typeof r.blob === 'string') {
        const base = path.posix.basename(String(r.uri ?? '')).replace(/\.[A-Za-z0-9]+$/, '');
        if (o.saveDir !== undefined) out.push(record(o, saveBlob(o.saveDir, base || stem, r.mimeType, r.blob)));
        else out.push(`[resource ${safeText(r.mimeType ?? 'application/octet-stream', 80)}, ${Buffer.from(r.blob, 'base64').length} bytes: ${safeText(r.uri, 2000)}; --save-dir DIR writes it to a file]`);
      }
      return;
    }
    out.push(`[${safeText((block as { type?: unknown }).type, 40)}]`);
  });
  return out;
}

function record(o: RenderOptions, file: string): string {
  o.saved?.push(file);
  return file;
}
